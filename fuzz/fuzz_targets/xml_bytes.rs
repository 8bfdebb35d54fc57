//! Any bytes as a BehaviorTree.CPP file: read → written back into its document → read
//! again → written again to the same text → everything `tree_bytes` does with the tree.
//! A panic is a crash.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        exercise::xml_text(text);
    }
});
