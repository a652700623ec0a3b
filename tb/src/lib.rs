//! Testbenches live in `tests/`; shared helpers are in `rnic-sim`.
