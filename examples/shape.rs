//! Writes a large or hostile tree file, for timing the CLI on it by hand:
//!
//! ```text
//! cargo run --release --example shape -- balanced 100000 > /tmp/big.json
//! /usr/bin/time -v target/release/arbor validate /tmp/big.json
//! cargo run --release --example shape -- subtree_levels 12 10 /tmp/levels   # writes a folder
//! ```
//!
//! The shapes are those of benches/shapes.rs (tests/common/big_trees.rs).

#[path = "../tests/common/big_trees.rs"]
mod big_trees;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    match (args.first().map(String::as_str), number(1)) {
        (Some("subtree_levels"), Some(levels)) => {
            let (Some(fan), Some(dir)) = (number(2), args.get(3)) else {
                eprintln!("usage: shape subtree_levels LEVELS FAN FOLDER");
                return ExitCode::FAILURE;
            };
            let main = big_trees::subtree_levels(std::path::Path::new(dir), levels, fan);
            println!("{}", main.display());
        }
        (Some(name), Some(n)) if big_trees::shape(name, n).is_some() => {
            print!("{}", big_trees::shape(name, n).unwrap_or_default());
        }
        _ => {
            eprintln!(
                "usage: shape SHAPE N   (SHAPE: {}), or shape subtree_levels LEVELS FAN FOLDER",
                big_trees::SHAPES.join(", ")
            );
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
