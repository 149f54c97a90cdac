//! Where a lease lives in etcd, and what its keys hold.
//!
//! ```text
//! <prefix>/claim/<id>   holder's claim, bound to its etcd lease: gone when the lease ends
//! <prefix>/fence/<id>   the horizon, kept forever: read by the next holder of <id>
//! ```
//!
//! Both hold `"<horizon in Unix ns> <holder>"`. Ids are written with ten
//! digits so that etcd's byte order of keys is the numeric order of ids and
//! a range read of `[claim(first), claim(last) + 1)` lists exactly the range.

use kguid_lease::{Error, Result};

/// The key names of one lease prefix.
#[derive(Clone, Debug)]
pub(crate) struct Keys {
    prefix: String,
}

impl Keys {
    pub(crate) fn new(prefix: &str) -> Keys {
        Keys {
            prefix: prefix.trim_end_matches('/').to_owned(),
        }
    }

    /// The key a holder of `id` owns while its lease lives.
    pub(crate) fn claim(&self, id: u32) -> String {
        format!("{}/claim/{id:010}", self.prefix)
    }

    /// The key one past every claim key of ids `<= last`.
    pub(crate) fn claim_end(&self, last: u32) -> String {
        match last.checked_add(1) {
            Some(next) => self.claim(next),
            // Past the ten digits of u32::MAX: ':' sorts after '9'.
            None => format!("{}/claim/:", self.prefix),
        }
    }

    /// The key that keeps the horizon of `id` across holders.
    pub(crate) fn fence(&self, id: u32) -> String {
        format!("{}/fence/{id:010}", self.prefix)
    }

    /// The node id of a claim key listed under this prefix.
    pub(crate) fn id_of_claim(&self, key: &[u8]) -> Result<u32> {
        let corrupt = || Error::Corrupt {
            key: String::from_utf8_lossy(key).into_owned(),
        };
        let head = format!("{}/claim/", self.prefix);
        let digits = key.strip_prefix(head.as_bytes()).ok_or_else(corrupt)?;
        if digits.len() != 10 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(corrupt());
        }
        std::str::from_utf8(digits)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(corrupt)
    }
}

/// The value of claim and fence keys.
pub(crate) fn value(horizon_ns: u64, holder: &str) -> String {
    format!("{horizon_ns} {holder}")
}

/// The horizon stored in a claim or fence value.
pub(crate) fn horizon_of(key: &str, value: &[u8]) -> Result<u64> {
    let corrupt = || Error::Corrupt {
        key: key.to_owned(),
    };
    let text = std::str::from_utf8(value).map_err(|_| corrupt())?;
    let (ns, _holder) = text.split_once(' ').ok_or_else(corrupt)?;
    if ns.is_empty() || !ns.bytes().all(|b| b.is_ascii_digit()) {
        return Err(corrupt());
    }
    ns.parse().map_err(|_| corrupt())
}

/// The lowest id in `first..=last` not in `taken` (sorted ascending).
#[cfg(test)]
pub(crate) fn lowest_free(first: u32, last: u32, taken: &[u32]) -> Option<u32> {
    lowest_free_n(first, last, taken, 1).first().copied()
}

/// The `n` lowest ids in `first..=last` not in `taken` (sorted
/// ascending), or as many as there are.
pub(crate) fn lowest_free_n(first: u32, last: u32, taken: &[u32], n: usize) -> Vec<u32> {
    let mut free = Vec::with_capacity(n.min(64));
    let mut candidate = u64::from(first);
    let mut taken = taken.iter().map(|&id| u64::from(id)).peekable();
    while free.len() < n && candidate <= u64::from(last) {
        while taken.next_if(|&id| id < candidate).is_some() {}
        if taken.next_if_eq(&candidate).is_none() {
            // Within first..=last, which fits a u32.
            free.push(candidate as u32);
        }
        candidate += 1;
    }
    free
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_keys_sort_as_their_ids() {
        let keys = Keys::new("fleet/");
        let mut ids = [0, 9, 10, 99, 100, 65_535, u32::MAX - 1, u32::MAX];
        let mut names: Vec<String> = ids.iter().map(|&id| keys.claim(id)).collect();
        names.push(keys.claim_end(u32::MAX));
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        ids.sort();
        for id in ids {
            assert_eq!(keys.id_of_claim(keys.claim(id).as_bytes()).unwrap(), id);
        }
        assert_eq!(keys.claim(7), "fleet/claim/0000000007");
        assert_eq!(keys.fence(7), "fleet/fence/0000000007");
    }

    #[test]
    fn foreign_claim_keys_are_typed_errors() {
        let keys = Keys::new("p");
        for bad in [
            &b"p/claim/12"[..],
            b"p/claim/00000000a1",
            b"q/claim/0000000001",
            b"p/claim/9999999999",
            b"p/claim/\xff\xff",
        ] {
            assert!(matches!(keys.id_of_claim(bad), Err(Error::Corrupt { .. })));
        }
    }

    #[test]
    fn values_round_trip_and_garbage_is_rejected() {
        let v = value(1_700_000_000_123_456_789, "pid 7 on host a");
        assert_eq!(
            horizon_of("k", v.as_bytes()).unwrap(),
            1_700_000_000_123_456_789
        );
        for bad in [
            &b""[..],
            b"12",
            b" holder",
            b"-1 h",
            b"1x h",
            b"99999999999999999999 h",
            b"\xff h",
        ] {
            assert!(
                matches!(horizon_of("k", bad), Err(Error::Corrupt { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_lowest_free_ids_in_order() {
        assert_eq!(lowest_free_n(0, 9, &[1, 2, 5], 4), [0, 3, 4, 6]);
        assert_eq!(lowest_free_n(0, 3, &[0, 2], 8), [1, 3]);
        assert_eq!(lowest_free_n(3, 3, &[], 8), [3]);
        assert!(lowest_free_n(0, 1, &[0, 1], 8).is_empty());
        assert_eq!(
            lowest_free_n(u32::MAX - 2, u32::MAX, &[u32::MAX - 1], 8),
            [u32::MAX - 2, u32::MAX]
        );
    }

    #[test]
    fn lowest_free_fills_gaps_first() {
        assert_eq!(lowest_free(0, 3, &[]), Some(0));
        assert_eq!(lowest_free(0, 3, &[0, 1, 3]), Some(2));
        assert_eq!(lowest_free(0, 3, &[0, 1, 2, 3]), None);
        assert_eq!(lowest_free(5, 9, &[1, 5, 6]), Some(7));
        assert_eq!(lowest_free(u32::MAX, u32::MAX, &[u32::MAX]), None);
        assert_eq!(
            lowest_free(u32::MAX - 1, u32::MAX, &[u32::MAX - 1]),
            Some(u32::MAX)
        );
    }
}
