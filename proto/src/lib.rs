//! RoCEv2 protocol model (in progress).
