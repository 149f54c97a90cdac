//! One connection's protocol state without I/O: bytes in, what to answer
//! out. The server's connections and the fuzz target drive the same calls.
//!
//! Read into [`Session::space`], report the count with [`Session::filled`],
//! then call [`Session::next_step`] until it asks for more input; answer each
//! [`Next::Ids`] and confirm it with [`Session::answered`] (a request not
//! confirmed is returned again, for a caller that must wait before it
//! answers).
//!
//! ```
//! use kguid_service::session::{Next, Session};
//!
//! let mut s = Session::new(Some(b"s3cret"));
//! let frame = b"\x00\x06s3cret\x02";
//! s.space()[..frame.len()].copy_from_slice(frame);
//! s.filled(frame.len());
//! assert_eq!(s.next_step(), Next::Authenticated);
//! assert!(matches!(s.next_step(), Next::Ids(n) if n.get() == 2));
//! s.answered();
//! assert_eq!(s.next_step(), Next::Read);
//! ```

use std::num::NonZeroU8;

use crate::protocol::{self, Auth, Request};

/// Input buffered per connection: the longest auth frame (257 bytes) and
/// some requests. Held only while bytes wait in it, so that an idle
/// connection holds none.
pub const INPUT: usize = 320;

/// What the input asks for next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Read more input.
    Read,
    /// The auth frame carried the right token; from now on requests are
    /// answered. Once per session, and only when a token is required.
    Authenticated,
    /// Answer a request for this many ids, then call [`Session::answered`].
    Ids(NonZeroU8),
    /// Close the connection once what was answered is sent; every later
    /// call says so again.
    Close(Close),
}

/// Why a session ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// The client sent `N = 0`.
    Client,
    /// The first bytes were not an auth frame with the right token.
    Auth,
}

/// The protocol state of one connection.
pub struct Session<'t> {
    /// The token required first; `None`: no auth.
    token: Option<&'t [u8]>,
    authed: bool,
    closed: Option<Close>,
    /// Allocated by [`Session::space`], freed once every byte is handled.
    input: Option<Box<[u8; INPUT]>>,
    /// The first byte not handled yet.
    start: usize,
    /// The end of the bytes read.
    end: usize,
}

impl<'t> Session<'t> {
    /// A session that requires `token` first (`None`: no auth).
    pub fn new(token: Option<&'t [u8]>) -> Session<'t> {
        Session {
            token,
            authed: token.is_none(),
            closed: None,
            input: None,
            start: 0,
            end: 0,
        }
    }

    /// Where to read the next bytes; never empty when [`Session::next_step`]
    /// has just returned [`Next::Read`].
    pub fn space(&mut self) -> &mut [u8] {
        let input = self.input.get_or_insert_with(|| Box::new([0; INPUT]));
        if self.start > 0 {
            input.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut input[self.end..]
    }

    /// The bytes read and not handled yet.
    fn buffered(&self) -> &[u8] {
        self.input
            .as_deref()
            .map_or(&[], |input| &input[self.start..self.end])
    }

    /// Asks for more input, freeing the buffer if nothing waits in it.
    fn read(&mut self) -> Next {
        if self.start == self.end {
            (self.input, self.start, self.end) = (None, 0, 0);
        }
        Next::Read
    }

    /// Takes the first `n` bytes of [`Session::space`] as read.
    pub fn filled(&mut self, n: usize) {
        debug_assert!(n <= INPUT - self.end);
        self.end = (self.end + n).min(INPUT);
    }

    /// What to do next with the bytes read so far.
    pub fn next_step(&mut self) -> Next {
        if let Some(why) = self.closed {
            return Next::Close(why);
        }
        if !self.authed {
            let expected = self.token.unwrap_or_default();
            return match protocol::auth(self.buffered()) {
                Auth::Incomplete => self.read(),
                Auth::Token { token, used } if protocol::token_matches(token, expected) => {
                    self.start += used;
                    self.authed = true;
                    Next::Authenticated
                }
                Auth::Token { .. } | Auth::Missing => self.close(Close::Auth),
            };
        }
        let Some(&byte) = self.buffered().first() else {
            return self.read();
        };
        match Request::from_byte(byte) {
            Request::Ids(n) => Next::Ids(n),
            Request::Close => self.close(Close::Client),
        }
    }

    /// The request [`Session::next_step`] returned was answered.
    pub fn answered(&mut self) {
        debug_assert!(self.authed && self.closed.is_none() && self.start < self.end);
        if self.start < self.end {
            self.start += 1;
        }
    }

    fn close(&mut self, why: Close) -> Next {
        self.closed = Some(why);
        Next::Close(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` one at a time and collects what the session asks for.
    fn trickle(token: Option<&[u8]>, bytes: &[u8]) -> Vec<Next> {
        let mut s = Session::new(token);
        let mut seen = Vec::new();
        for &b in bytes {
            s.space()[0] = b;
            s.filled(1);
            loop {
                match s.next_step() {
                    Next::Read => break,
                    Next::Ids(n) => {
                        seen.push(Next::Ids(n));
                        s.answered();
                    }
                    other => {
                        seen.push(other);
                        if let Next::Close(_) = other {
                            return seen;
                        }
                    }
                }
            }
        }
        seen
    }

    fn ids(n: u8) -> Next {
        Next::Ids(NonZeroU8::new(n).unwrap())
    }

    #[test]
    fn no_token_answers_until_n0() {
        assert_eq!(
            trickle(None, &[3, 255, 0, 7]),
            [ids(3), ids(255), Next::Close(Close::Client)]
        );
    }

    #[test]
    fn ids_only_after_the_right_token() {
        let t = Some(&b"ab"[..]);
        assert_eq!(trickle(t, b"\x00\x02ab\x05"), [Next::Authenticated, ids(5)]);
        assert_eq!(trickle(t, b"\x00\x02ax\x05"), [Next::Close(Close::Auth)]);
        assert_eq!(trickle(t, b"\x00\x01a\x05"), [Next::Close(Close::Auth)]);
        assert_eq!(trickle(t, b"\x05"), [Next::Close(Close::Auth)]);
        assert_eq!(trickle(t, b"\x00\x02a"), []);
    }

    #[test]
    fn a_request_not_answered_comes_again() {
        let mut s = Session::new(None);
        s.space()[..2].copy_from_slice(&[9, 0]);
        s.filled(2);
        assert_eq!(s.next_step(), ids(9));
        assert_eq!(s.next_step(), ids(9));
        s.answered();
        assert_eq!(s.next_step(), Next::Close(Close::Client));
        assert_eq!(s.next_step(), Next::Close(Close::Client));
    }

    #[test]
    fn the_longest_frame_leaves_room() {
        let mut s = Session::new(Some(&[b'x'; 255]));
        let mut frame = vec![0, 255];
        frame.extend([b'x'; 254]);
        s.space()[..frame.len()].copy_from_slice(&frame);
        s.filled(frame.len());
        assert_eq!(s.next_step(), Next::Read);
        assert!(!s.space().is_empty());
        s.space()[..2].copy_from_slice(b"x\x01");
        s.filled(2);
        assert_eq!(s.next_step(), Next::Authenticated);
        assert_eq!(s.next_step(), ids(1));
        s.answered();
        assert_eq!(s.next_step(), Next::Read);
        assert_eq!(s.space().len(), INPUT);
    }

    #[test]
    fn only_bytes_waiting_hold_the_buffer() {
        let mut s = Session::new(Some(b"ab"));
        assert_eq!(s.next_step(), Next::Read);
        assert!(s.input.is_none(), "a new session holds no buffer");
        s.space()[..3].copy_from_slice(b"\x00\x02a");
        s.filled(3);
        assert_eq!(s.next_step(), Next::Read);
        assert!(s.input.is_some(), "a part of a frame is kept");
        s.space()[..3].copy_from_slice(b"b\x07\x08");
        s.filled(3);
        assert_eq!(s.next_step(), Next::Authenticated);
        assert_eq!(s.next_step(), ids(7));
        s.answered();
        assert_eq!(s.next_step(), ids(8));
        s.answered();
        assert_eq!(s.next_step(), Next::Read);
        assert!(s.input.is_none(), "every byte handled, the buffer is freed");
        s.space()[0] = 9;
        s.filled(1);
        assert_eq!(s.next_step(), ids(9));
    }
}
