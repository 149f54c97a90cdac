//! The 64-bit flake (snowflake) layout: `| time | node | seq |`.
