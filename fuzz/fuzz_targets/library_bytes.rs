//! Any bytes as a node library file: read → problems said → canonical round trip → its
//! kinds checked against the built-ins. A panic is a crash.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        exercise::library_text(text);
    }
});
