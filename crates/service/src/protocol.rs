//! noeqd's wire protocol, byte for byte: parsing without I/O.
//!
//! ```text
//! auth (only when the server has a token), once, first:
//!   +------+-----+----------------+
//!   | 0x00 | len | token: len B   |
//!   +------+-----+----------------+
//! request, any number, pipelined or not:
//!   +---+
//!   | N |        N in 1..=255; 0 closes the connection
//!   +---+
//! reply, in one write:
//!   +---------+---------+-----+---------+
//!   | id 1    | id 2    | ... | id N    |    8 bytes each, big-endian (96-bit service: 12)
//!   +---------+---------+-----+---------+
//! ```
//!
//! Incomplete input is not an error: the parsers say how much more they
//! need to see.

use std::num::NonZeroU8;

/// The most ids one request asks for.
pub const MAX_IDS: usize = 255;

/// The longest token the length byte can announce.
pub const MAX_TOKEN: usize = 255;

/// One request byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Send this many ids.
    Ids(NonZeroU8),
    /// `N = 0`: close the connection.
    Close,
}

impl Request {
    /// The request of one byte.
    pub fn from_byte(byte: u8) -> Request {
        match NonZeroU8::new(byte) {
            Some(n) => Request::Ids(n),
            None => Request::Close,
        }
    }
}

/// The result of reading the auth preamble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth<'a> {
    /// More bytes are needed.
    Incomplete,
    /// The preamble is complete: the token given, and the bytes it took.
    Token {
        /// The token the client sent.
        token: &'a [u8],
        /// How many bytes of the input the preamble used.
        used: usize,
    },
    /// The first byte is not `0x00`: the client did not authenticate.
    Missing,
}

/// Parses the auth preamble at the start of `input`.
pub fn auth(input: &[u8]) -> Auth<'_> {
    match input {
        [] | [0] => Auth::Incomplete,
        [0, len, rest @ ..] => {
            let len = usize::from(*len);
            match rest.get(..len) {
                Some(token) => Auth::Token {
                    token,
                    used: 2 + len,
                },
                None => Auth::Incomplete,
            }
        }
        _ => Auth::Missing,
    }
}

/// Whether the token a client gave is the server's, in time that does not
/// depend on where they differ (with the `session` feature).
#[cfg(feature = "session")]
pub fn token_matches(given: &[u8], expected: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(given, expected).into()
}

/// The auth preamble a client sends for `token`, or `None` if the token is
/// longer than [`MAX_TOKEN`] bytes.
pub fn auth_preamble(token: &[u8]) -> Option<Vec<u8>> {
    let len = u8::try_from(token.len()).ok()?;
    let mut out = Vec::with_capacity(2 + token.len());
    out.extend_from_slice(&[0, len]);
    out.extend_from_slice(token);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        assert_eq!(Request::from_byte(0), Request::Close);
        for n in 1..=255u8 {
            assert_eq!(
                Request::from_byte(n),
                Request::Ids(NonZeroU8::new(n).unwrap())
            );
        }
    }

    #[test]
    fn auth_preamble_parses_in_every_cut() {
        let full = auth_preamble(b"secret").unwrap();
        for cut in 0..full.len() {
            assert_eq!(auth(&full[..cut]), Auth::Incomplete, "cut {cut}");
        }
        let mut more = full.clone();
        more.push(7); // a request right behind the preamble
        assert_eq!(
            auth(&more),
            Auth::Token {
                token: b"secret",
                used: 8
            }
        );
        assert_eq!(
            auth(&[0, 0]),
            Auth::Token {
                token: b"",
                used: 2
            }
        );
        assert_eq!(auth(&[1, 0]), Auth::Missing);
        assert_eq!(auth(&[255]), Auth::Missing);
    }

    #[cfg(feature = "session")]
    #[test]
    fn tokens_match_only_when_equal() {
        assert!(token_matches(b"abc", b"abc"));
        assert!(!token_matches(b"abd", b"abc"));
        assert!(!token_matches(b"ab", b"abc"));
        assert!(!token_matches(b"", b"abc"));
    }

    #[test]
    fn preambles_hold_at_most_255_bytes() {
        assert!(auth_preamble(&[b'x'; 256]).is_none());
        assert_eq!(auth_preamble(&[b'x'; 255]).unwrap().len(), 257);
    }
}
