//! Any bytes as a binary trace's records (after its first bytes and version): read →
//! written in both encodings, each read back → replayed to its end and back. A panic is a
//! crash.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::binary_trace_bytes(data);
});
