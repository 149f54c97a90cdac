//! Examples and tests of ids in PostgreSQL and SQLite: see `tests/` and `examples/`.
