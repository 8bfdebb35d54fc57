//! Any bytes as a trace: read → replayed to its end and back. A panic is a crash.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    exercise::trace_bytes(data);
});
