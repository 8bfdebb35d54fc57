//! What every function returns: a code, and for a failure a message kept per thread
//! (`arbor_last_error`). No panic crosses the boundary: each function's body runs under
//! [`guard`], which turns one into `ARBOR_ERR_INTERNAL`.

use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Done.
pub const ARBOR_OK: i32 = 0;
/// A pointer that must not be null was null.
pub const ARBOR_ERR_NULL: i32 = 1;
/// The handle is not a live one: freed, closed, never made, or 0.
pub const ARBOR_ERR_HANDLE: i32 = 2;
/// The handle is live but of another type (a tree where an agent was asked for).
pub const ARBOR_ERR_HANDLE_TYPE: i32 = 3;
/// The object is in use by another call: one on another thread, or the step whose
/// callback made this call. Nothing was done; the call never waits.
pub const ARBOR_ERR_BUSY: i32 = 4;
/// An argument is wrong: text that is not UTF-8, a negative or NaN `dt`, a value of no
/// type.
pub const ARBOR_ERR_ARGUMENT: i32 = 5;
/// A file could not be read or does not read as what it should be: the message names the
/// file, and the line and column where known.
pub const ARBOR_ERR_LOAD: i32 = 6;
/// A tree, library or project has errors: the message lists them, each naming its file,
/// node and field. No handle is made.
pub const ARBOR_ERR_INVALID: i32 = 7;
/// No such key, field, kind or Interrupt.
pub const ARBOR_ERR_NOT_FOUND: i32 = 8;
/// A value of another type than the key or field holds.
pub const ARBOR_ERR_TYPE: i32 = 9;
/// A callback returned what it may not (a status that is none of `ARBOR_RUNNING`,
/// `ARBOR_SUCCESS`, `ARBOR_FAILURE`): its node failed, and the step went on.
pub const ARBOR_ERR_CALLBACK: i32 = 10;
/// Writing a trace failed.
pub const ARBOR_ERR_IO: i32 = 11;
/// An `ArborNode` that is not the one whose callback runs now on this thread (one kept
/// past its callback, or null).
pub const ARBOR_ERR_CALL: i32 = 12;
/// A fault inside Arbor (a bug): caught at the boundary; the agent, runtime or trace it
/// happened in refuses every later call with this code.
pub const ARBOR_ERR_INTERNAL: i32 = 13;
/// Not an error: the editor holds the agent (a breakpoint, Pause), so it was not stepped.
pub const ARBOR_HELD: i32 = 100;

/// A call that failed: its code and what to tell the caller.
#[derive(Debug)]
pub(crate) struct Failure {
    pub code: i32,
    pub message: String,
}

/// A failure of code `code` saying `message`.
pub(crate) fn fail<T>(code: i32, message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        code,
        message: message.into(),
    })
}

thread_local! {
    /// The last failure's message on this thread, NUL-terminated.
    static LAST: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs a function's body: its code, or its failure's (the message kept for
/// `arbor_last_error`), or `ARBOR_ERR_INTERNAL` for a panic.
pub(crate) fn guard(body: impl FnOnce() -> Result<i32, Failure>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(code)) => code,
        Ok(Err(f)) => {
            remember(&f.message);
            f.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            remember(&format!("internal error in Arbor: {what}"));
            ARBOR_ERR_INTERNAL
        }
    }
}

/// Keeps `message` as this thread's last error.
pub(crate) fn remember(message: &str) {
    // (A thread being torn down has no message to keep.)
    let _ = LAST.try_with(|b| {
        let mut b = b.borrow_mut();
        b.clear();
        // (A NUL inside would end the C string early: shown as a space.)
        b.extend(message.bytes().map(|c| if c == 0 { b' ' } else { c }));
        b.push(0);
    });
}

/// The message of the last call on this thread that failed, as a NUL-terminated UTF-8
/// string; "" when none has. Valid until the next call on this thread fails; owned by
/// Arbor (never free it).
#[unsafe(no_mangle)]
pub extern "C" fn arbor_last_error() -> *const c_char {
    LAST.try_with(|b| {
        let mut b = b.borrow_mut();
        if b.is_empty() {
            b.push(0);
        }
        b.as_ptr().cast()
    })
    .unwrap_or(c"".as_ptr())
}
