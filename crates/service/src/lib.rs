//! `guid serve`: a tiny TCP id service that speaks noeqd's wire protocol
//! unchanged, for 64-bit flake ids and 96-bit global ids, and a client that
//! fails over across addresses.
//!
//! A client sends one byte `N` (1..=255) and reads `N` ids back, 8 bytes
//! each, big-endian (12 bytes each on the global-id listener); see
//! [`protocol`]. The server is a single-threaded event loop: it keeps a few
//! hundred bytes per connection and runs tests on port 0:
//!
//! ```
//! use std::net::TcpListener;
//! use kguid_service::{Client, Config, run};
//!
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let addr = listener.local_addr()?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let mut config = Config::default();
//! config.log = false;
//! let server = std::thread::spawn(move || run(listener, config, async { let _ = stopped.await; }));
//!
//! let mut client = Client::connect([addr], None)?;
//! let ids = client.next_n(1_000)?;
//! assert!(ids.windows(2).all(|w| w[0] < w[1]));
//!
//! stop.send(()).ok();
//! let report = server.join().expect("server thread")?;
//! assert_eq!(report.ids, 1_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Guarantees
//!
//! | event | noeqd | this service |
//! |---|---|---|
//! | the system clock steps back | closes every connection until time catches up | keeps serving, ids still increasing |
//! | more than 4,096 ids in a millisecond | waits for the next millisecond | borrows up to `max_lead` ahead, then waits |
//! | restart after the clock stepped back | repeats ids unless `-t` is given by hand | `--state FILE`: a horizon reserved ahead and fsynced before ids pass it |
//! | accept fails (out of file descriptors) | panics and dies | logs, backs off, keeps serving open connections |
//! | idle or slow clients | kept forever | `--idle-timeout`, `--max-conns`; the token within `--auth-timeout` of accept, clients without it apart (`--max-unauthed`) |
//! | SIGTERM / SIGINT | dies mid-reply | stops accepting, finishes replies, saves state, exits 0 |
//! | a setting it cannot honour | | refused before listening ([`Config::check`]) |
//! | wrong token | closes | closes (compared in constant time) |

#![deny(missing_docs)]

mod args;
mod busy_poll;
mod client;
mod connection;
mod error;
mod gate;
mod horizon;
#[cfg(feature = "etcd")]
mod lease;
mod log;
pub mod protocol;
mod server;
pub mod session;
mod start;

pub use crate::args::{ServeArgs, serve_main};
pub use crate::client::{Client, ClientError, Id};
pub use crate::error::Error;
#[cfg(feature = "etcd")]
pub use crate::lease::EtcdLease;
pub use crate::server::{Config, Listeners, Report, run};
