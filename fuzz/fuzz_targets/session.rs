//! A connection's protocol state (auth frame, then requests) fed any bytes
//! in any split into reads, driven as the server's connections drive it: no
//! panic, and exactly the requests after a complete auth frame with the
//! right token are answered (all of them up to `N = 0` when there is no
//! token), nothing before it and nothing after a close.
//!
//! Input: one byte choosing the token (none or one of three) and how many
//! of the next bytes are read sizes, those sizes, then the stream.
#![no_main]
use kguid_service::session::{Close, INPUT, Next, Session};
use libfuzzer_sys::fuzz_target;

const TOKENS: [Option<&[u8]>; 4] = [None, Some(b"k"), Some(b"s3cret"), Some(&[b'x'; 40])];

/// What the session must ask for, given the whole stream.
fn expected(token: Option<&[u8]>, stream: &[u8]) -> Vec<Next> {
    let mut out = Vec::new();
    let body = match token {
        None => stream,
        Some(t) => match stream {
            [] | [0] => return out,
            [0, len, rest @ ..] => {
                let len = usize::from(*len);
                if rest.len() < len {
                    return out;
                }
                if &rest[..len] != t {
                    out.push(Next::Close(Close::Auth));
                    return out;
                }
                out.push(Next::Authenticated);
                &rest[len..]
            }
            _ => {
                out.push(Next::Close(Close::Auth));
                return out;
            }
        },
    };
    for &b in body {
        match std::num::NonZeroU8::new(b) {
            Some(n) => out.push(Next::Ids(n)),
            None => {
                out.push(Next::Close(Close::Client));
                break;
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let token = TOKENS[usize::from(choice & 3)];
    let (sizes, stream) = rest.split_at(usize::from(choice >> 2).min(8).min(rest.len()));

    let mut session = Session::new(token);
    let mut seen = Vec::new();
    let (mut fed, mut reads) = (0, 0);
    loop {
        let next = session.next_step();
        match next {
            Next::Read => {
                let space = session.space();
                assert!(!space.is_empty() && space.len() <= INPUT, "no room to read");
                if fed == stream.len() {
                    break;
                }
                let want = match sizes.get(reads % sizes.len().max(1)) {
                    Some(&s) => usize::from(s) + 1,
                    None => usize::MAX,
                };
                let n = want.min(space.len()).min(stream.len() - fed);
                space[..n].copy_from_slice(&stream[fed..fed + n]);
                session.filled(n);
                fed += n;
                reads += 1;
            }
            Next::Ids(_) => {
                // A request not answered yet comes back the same (a paced
                // connection asks again after its wait).
                if reads % 3 == 0 {
                    assert_eq!(session.next_step(), next);
                }
                seen.push(next);
                session.answered();
            }
            Next::Authenticated => seen.push(next),
            Next::Close(_) => {
                seen.push(next);
                assert_eq!(session.next_step(), next, "a close is final");
                break;
            }
        }
    }
    assert_eq!(seen, expected(token, stream));
});
