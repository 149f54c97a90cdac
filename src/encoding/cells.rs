//! Cells: an id's value cut into `n`-bit pieces from the top (Go's
//! `Split` and `Fold`).

use alloc::vec::Vec;

use super::length;
use crate::error::{Error, ErrorKind, Result};

/// Cuts a `bits`-wide value into `n`-bit cells from the top (Go's `Split`);
/// leftover low bits are dropped.
pub(crate) fn split(v: u128, bits: u32, n: u32) -> Result<Vec<u8>> {
    check_cell_width(n)?;
    let mask = (1u128 << n) - 1;
    Ok((1..=bits / n)
        .map(|i| ((v >> (bits - n * i)) & mask) as u8)
        .collect())
}

/// Puts `n`-bit cells back together (Go's `Fold`): exactly `bits / n` cells,
/// each below 2^n; the dropped low bits are zero.
pub(crate) fn fold(cells: &[u8], bits: u32, n: u32) -> Result<u128> {
    check_cell_width(n)?;
    let count = (bits / n) as usize;
    if cells.len() != count {
        return Err(length(count, cells.len()));
    }
    let mut v = 0u128;
    for (index, &value) in cells.iter().enumerate() {
        if u32::from(value) >> n != 0 {
            return Err(Error::new(ErrorKind::Cell { value, index }));
        }
        v = v << n | value as u128;
    }
    Ok(v << (bits % n))
}

fn check_cell_width(n: u32) -> Result<()> {
    if (1..=8).contains(&n) {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::CellWidth(n)))
    }
}
