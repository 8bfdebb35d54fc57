//! Any bytes as a tree file: load → validate → canonical round trip → compile → steps
//! with a trigger. A panic is a crash.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        exercise::tree_text(text);
    }
});
