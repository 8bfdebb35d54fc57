//! `include/arbor.h` is what cbindgen makes of the crate now: a change to the ABI that
//! is not in the committed header fails here. `ARBOR_BLESS=1 cargo test -p arbor-ffi
//! --test header` writes it.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

mod common;

#[test]
fn the_committed_header_is_what_cbindgen_makes_of_the_source() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut made);
    let made = String::from_utf8(made).unwrap();
    common::blessed(&crate_dir.join("include/arbor.h"), &made, "header");
}
