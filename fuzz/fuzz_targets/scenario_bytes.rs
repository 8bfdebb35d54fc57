//! Any bytes as a scenario file among the sample trees (so that its agents' tree paths
//! can name them): load → simulate 40 steps with a trigger → draw → summarise.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../sample_trees/fuzz.scenario.json");
        exercise::scenario_text(text, &path);
    }
});
