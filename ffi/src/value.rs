//! `ArborValue`: a blackboard key's, field's or payload's value as C sees it, tagged with
//! its type; and the per-thread buffer text handed back to C lives in.

use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::sync::Arc;

use arbor::model::{KeyType, Value};
use arbor::runtime::CtxValue;

use crate::error::{ARBOR_ERR_ARGUMENT, ARBOR_ERR_NULL, Failure, fail};

/// No value (an unset key, an optional field left empty, no payload).
pub const ARBOR_NONE: i32 = 0;
/// `boolean`.
pub const ARBOR_BOOL: i32 = 1;
/// `number`: a float key or field.
pub const ARBOR_NUMBER: i32 = 2;
/// `integer` (and `number`, the same value): an int key or field.
pub const ARBOR_INT: i32 = 3;
/// `text`, `text_len` bytes of UTF-8 (and NUL-terminated when Arbor gives it).
pub const ARBOR_TEXT: i32 = 4;
/// `entity`: a world entity's id.
pub const ARBOR_ENTITY: i32 = 5;
/// `position`: a point, x then y.
pub const ARBOR_POSITION: i32 = 6;

/// A value and its type (`ARBOR_NONE` … `ARBOR_POSITION`); only the member the type names
/// is read. Build one with a designated initializer: `(ArborValue){.type = ARBOR_NUMBER,
/// .number = 2.5}`; text given to Arbor may leave `text_len` 0 for a NUL-terminated
/// string. Text Arbor gives back is valid until the next call on the same thread that
/// gives text (a node's field text: until its callback returns); copy it to keep it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ArborValue {
    /// Which member holds the value: one of `ARBOR_NONE` … `ARBOR_POSITION`.
    pub r#type: i32,
    /// For `ARBOR_BOOL`.
    pub boolean: bool,
    /// For `ARBOR_NUMBER`, and `ARBOR_INT` (the same value).
    pub number: f64,
    /// For `ARBOR_INT`.
    pub integer: i64,
    /// For `ARBOR_TEXT`: UTF-8.
    pub text: *const c_char,
    /// For `ARBOR_TEXT`: its length in bytes; 0 with a NUL-terminated `text` means "up to
    /// the NUL".
    pub text_len: usize,
    /// For `ARBOR_ENTITY`.
    pub entity: u64,
    /// For `ARBOR_POSITION`: x, y.
    pub position: [f64; 2],
}

impl ArborValue {
    /// No value.
    pub(crate) const NONE: Self = Self {
        r#type: ARBOR_NONE,
        boolean: false,
        number: 0.0,
        integer: 0,
        text: std::ptr::null(),
        text_len: 0,
        entity: 0,
        position: [0.0, 0.0],
    };

    /// The value `v` (of a key or field of type `int` when `int`), its text copied into
    /// `text`, the calling thread's buffer.
    pub(crate) fn of(v: &CtxValue, int: bool) -> Self {
        match v {
            CtxValue::Bool(b) => Self {
                r#type: ARBOR_BOOL,
                boolean: *b,
                ..Self::NONE
            },
            CtxValue::Number(n) => Self::number(*n, int),
            CtxValue::Text(t) => given_text(t),
            CtxValue::Entity(e) => Self {
                r#type: ARBOR_ENTITY,
                entity: *e,
                ..Self::NONE
            },
            CtxValue::Position(p) => Self {
                r#type: ARBOR_POSITION,
                position: *p,
                ..Self::NONE
            },
        }
    }

    fn number(n: f64, int: bool) -> Self {
        if int && n.fract() == 0.0 && n.abs() < 9.2e18 {
            Self {
                r#type: ARBOR_INT,
                number: n,
                integer: n as i64,
                ..Self::NONE
            }
        } else {
            Self {
                r#type: ARBOR_NUMBER,
                number: n,
                ..Self::NONE
            }
        }
    }

    /// A field's value; a key it is bound to as its name, text.
    pub(crate) fn of_field(v: Option<&Value>, text: &CStr) -> Self {
        match v {
            None => Self::NONE,
            Some(Value::Bool(b)) => Self {
                r#type: ARBOR_BOOL,
                boolean: *b,
                ..Self::NONE
            },
            Some(Value::Int(i)) => Self {
                r#type: ARBOR_INT,
                integer: *i,
                number: *i as f64,
                ..Self::NONE
            },
            Some(Value::Float(f)) => Self {
                r#type: ARBOR_NUMBER,
                number: *f,
                ..Self::NONE
            },
            Some(Value::Text(_) | Value::Key(_)) => Self {
                r#type: ARBOR_TEXT,
                text: text.as_ptr(),
                text_len: text.to_bytes().len(),
                ..Self::NONE
            },
        }
    }

    /// The value C gave, or `None` for `ARBOR_NONE`.
    ///
    /// # Safety
    /// For `ARBOR_TEXT`, `text` must point to `text_len` readable bytes (or a
    /// NUL-terminated string when `text_len` is 0).
    pub(crate) unsafe fn to_ctx(self) -> Result<Option<CtxValue>, Failure> {
        Ok(Some(match self.r#type {
            ARBOR_NONE => return Ok(None),
            ARBOR_BOOL => CtxValue::Bool(self.boolean),
            ARBOR_NUMBER => CtxValue::Number(self.number),
            ARBOR_INT => CtxValue::Number(self.integer as f64),
            // SAFETY: the caller's contract.
            ARBOR_TEXT => CtxValue::Text(Arc::from(unsafe { text_in(self.text, self.text_len) }?)),
            ARBOR_ENTITY => CtxValue::Entity(self.entity),
            ARBOR_POSITION => CtxValue::Position(self.position),
            other => {
                return fail(
                    ARBOR_ERR_ARGUMENT,
                    format!(
                        "an ArborValue of type {other}, which is none of ARBOR_NONE … ARBOR_POSITION"
                    ),
                );
            }
        }))
    }
}

/// Whether a key of type `ty` holds whole numbers (its values are given as `ARBOR_INT`).
pub(crate) fn is_int(ty: KeyType) -> bool {
    ty == KeyType::Int
}

/// `len` bytes of UTF-8 at `text` (`len` 0: up to a NUL).
///
/// # Safety
/// `text` must point to `len` readable bytes, or to a NUL-terminated string when `len` is 0.
pub(crate) unsafe fn text_in<'a>(text: *const c_char, len: usize) -> Result<&'a str, Failure> {
    if text.is_null() {
        return fail(ARBOR_ERR_NULL, "text is null");
    }
    let bytes = if len == 0 {
        // SAFETY: the caller's contract: a NUL-terminated string.
        unsafe { CStr::from_ptr(text) }.to_bytes()
    } else {
        // SAFETY: the caller's contract: `len` readable bytes.
        unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) }
    };
    std::str::from_utf8(bytes).map_err(|e| Failure {
        code: ARBOR_ERR_ARGUMENT,
        message: format!("text is not UTF-8: {e}"),
    })
}

/// A NUL-terminated C string argument named `what`.
///
/// # Safety
/// `text` must be null or point to a NUL-terminated string.
pub(crate) unsafe fn name<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return fail(ARBOR_ERR_NULL, format!("{what} is null"));
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { CStr::from_ptr(text) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| Failure {
        code: ARBOR_ERR_ARGUMENT,
        message: format!("{what} is not UTF-8: {e}"),
    })
}

thread_local! {
    /// The text last given to C on this thread, NUL-terminated.
    static GIVEN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `t` as an `ARBOR_TEXT` value, copied into this thread's buffer.
fn given_text(t: &str) -> ArborValue {
    GIVEN.with_borrow_mut(|b| {
        b.clear();
        b.extend_from_slice(t.as_bytes());
        b.push(0);
        ArborValue {
            r#type: ARBOR_TEXT,
            text: b.as_ptr().cast(),
            text_len: t.len(),
            ..ArborValue::NONE
        }
    })
}

/// Writes `value` to `out`, unless `out` is null.
///
/// # Safety
/// `out` must be null or point to writable memory for an `ArborValue`.
pub(crate) unsafe fn put(out: *mut ArborValue, value: ArborValue) -> Result<(), Failure> {
    if out.is_null() {
        return fail(ARBOR_ERR_NULL, "out is null");
    }
    // SAFETY: the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}
