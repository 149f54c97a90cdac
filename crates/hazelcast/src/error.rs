//! What can go wrong talking to a Hazelcast cluster, each case typed.

use std::time::Duration;

/// A request to the cluster failed (inside `kguid_lease::Error::Store`
/// when the lease made it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No listed member accepted a connection; the last failure is kept.
    #[error("no Hazelcast member answers at {addresses}: {last}")]
    Unreachable {
        /// The addresses tried.
        addresses: String,
        /// Why the last one failed.
        #[source]
        last: std::io::Error,
    },
    /// A member refused the client: a wrong cluster name or credentials
    /// (`status` 1), or a member that does not take this client.
    #[error("Hazelcast member {member} refused the client: {reason}")]
    Refused {
        /// The member's address.
        member: String,
        /// Why, as the member's status says.
        reason: &'static str,
    },
    /// The connection to a member closed or failed while a request was
    /// under way: the request may or may not have been applied.
    #[error("connection to Hazelcast member {member} lost: {reason}")]
    Closed {
        /// The member's address.
        member: String,
        /// What happened.
        reason: String,
    },
    /// A write its partition's owner applied, but fewer of its backups
    /// acknowledged within the timeout than the owner keeps (a backup cut
    /// off, or gone): it may be lost with the owner, so it does not count
    /// as stored.
    #[error("written, but acknowledged by {acked} of {expected} backups")]
    Backups {
        /// Backups that acknowledged it.
        acked: u8,
        /// Backups the owner keeps.
        expected: u8,
    },
    /// No answer within the time given.
    #[error("no answer from Hazelcast within {0:?}")]
    Timeout(Duration),
    /// The member answered with an error of its own.
    #[error("Hazelcast error {code} ({class}): {message}")]
    Server {
        /// The protocol's error code.
        code: i32,
        /// The Java class of the member's exception.
        class: String,
        /// Its message.
        message: String,
    },
    /// A message that does not follow the protocol.
    #[error("malformed Hazelcast message: {0}")]
    Protocol(#[from] crate::message::Malformed),
    /// The settings cannot work.
    #[error("invalid settings: {0}")]
    Config(String),
}

/// The result of cluster requests.
pub type Result<T, E = Error> = std::result::Result<T, E>;
