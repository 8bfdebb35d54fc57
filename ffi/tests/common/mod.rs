//! What the tests of the C library share: where it was built, and a C compiler.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The folder cargo built the C library in (`target/debug`): beside the test's `deps/`.
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().to_owned();
    assert!(
        dir.join(library_file()).exists(),
        "no {} in {}: build the library first (`cargo build -p arbor-ffi`; scripts/test.sh does)",
        library_file(),
        dir.display()
    );
    dir
}

/// The shared library's file name on this system.
pub fn library_file() -> String {
    format!(
        "{}arbor_ffi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// Compiles the C program `source` against the shared library into `out`, with `flags`
/// (warnings are errors); panics with the compiler's output when it fails.
pub fn compile(source: &Path, out: &Path, flags: &[&str]) {
    let lib = lib_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(flags)
        .arg("-I")
        .arg(repo().join("ffi/include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-larbor_ffi", "-lm", "-o"])
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        output.status.success(),
        "{cc} failed on {}:\n{}{}",
        source.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Checks that the committed generated file `path` is `made`; with `ARBOR_BLESS` set,
/// writes it instead. `test` names the test that makes it, for the message.
pub fn blessed(path: &Path, made: &str, test: &str) {
    if std::env::var_os("ARBOR_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, made).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == made,
        "{} is not what it is made from: run `ARBOR_BLESS=1 cargo test -p arbor-ffi --test {test}` and commit it",
        path.display()
    );
}
