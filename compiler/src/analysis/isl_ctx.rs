//! The isl context of the analyses, one per thread, and the sets and maps it has read
//! from text.
//!
//! Every analysis works on the model's text ([`super::import::Model`]: domain, schedule,
//! accesses), and each used to read it into a fresh context of its own: the same
//! schedule and access relations were parsed again for each array, each candidate
//! mapping and each pass, and isl's parser took half of `tessel-optimize`'s time. The
//! analyses now share this thread's context, which keeps what it read: a text read
//! before is a copy of the object it gave.
//!
//! Each [`isl_context`] starts with no operation budget spent and none set; the caller
//! sets its own (`set_max_operations`), and the budget of an enclosing analysis comes
//! back when the guard is dropped (with its count of operations started afresh).

use isl_rs::{Context, LibISLError, UnionMap, UnionSet};
use std::cell::RefCell;
use std::collections::HashMap;

/// How many texts a thread keeps read (a scop's model is five, an analysis adds a few);
/// past it the cache starts empty again.
const KEPT: usize = 512;

enum Read {
    Set(UnionSet),
    Map(UnionMap),
}

struct Shared {
    /// The context, allocated on first use and never freed: objects read into it live
    /// as long as the thread.
    ptr: usize,
    read: RefCell<HashMap<(bool, String), Read>>,
}

thread_local! {
    static SHARED: Shared = {
        let ctx = Context::alloc();
        // ISL_ON_ERROR_CONTINUE: errors come back through the calls' results (isl's
        // default prints each on stderr, where a diagnostic of Tessel's own follows).
        // Setting an option of a fresh context cannot fail.
        let _ = isl_rs::Options::set_on_error(&ctx, 1);
        let mut ctx = ctx;
        ctx.should_free_on_drop = false;
        Shared { ptr: ctx.ptr, read: RefCell::new(HashMap::new()) }
    };
}

/// This thread's isl context, for one analysis: no operation limit until the caller
/// sets one. Derefs to [`Context`].
pub struct IslCtx {
    ctx: Context,
    /// The limit of the analysis around this one, restored on drop.
    outer: u64,
}

impl std::ops::Deref for IslCtx {
    type Target = Context;
    fn deref(&self) -> &Context {
        &self.ctx
    }
}

impl Drop for IslCtx {
    fn drop(&mut self) {
        self.ctx.reset_error();
        self.ctx.set_max_operations(self.outer);
    }
}

/// This thread's isl context (module docs).
pub fn isl_context() -> IslCtx {
    let ctx = Context {
        ptr: SHARED.with(|s| s.ptr),
        should_free_on_drop: false,
    };
    let outer = ctx.get_max_operations();
    ctx.set_max_operations(0);
    ctx.reset_operations();
    ctx.reset_error();
    IslCtx { ctx, outer }
}

/// The union set of `text` in `ctx`: a copy of the one read before in this thread's
/// context.
pub fn read_union_set(ctx: &Context, text: &str) -> Result<UnionSet, LibISLError> {
    match read(ctx, false, text, || {
        UnionSet::read_from_str(ctx, text).map(Read::Set)
    })? {
        Read::Set(s) => Ok(s),
        Read::Map(_) => unreachable!("a set's text is kept as a set"),
    }
}

/// The union map of `text` in `ctx`: a copy of the one read before in this thread's
/// context.
pub fn read_union_map(ctx: &Context, text: &str) -> Result<UnionMap, LibISLError> {
    match read(ctx, true, text, || {
        UnionMap::read_from_str(ctx, text).map(Read::Map)
    })? {
        Read::Map(m) => Ok(m),
        Read::Set(_) => unreachable!("a map's text is kept as a map"),
    }
}

fn read(
    ctx: &Context,
    map: bool,
    text: &str,
    parse: impl FnOnce() -> Result<Read, LibISLError>,
) -> Result<Read, LibISLError> {
    let copy = |r: &Read| -> Result<Read, LibISLError> {
        Ok(match r {
            Read::Set(s) => Read::Set(s.copy()?),
            Read::Map(m) => Read::Map(m.copy()?),
        })
    };
    SHARED.with(|s| {
        if ctx.ptr != s.ptr {
            return parse();
        }
        let key = (map, text.to_string());
        if let Some(r) = s.read.borrow().get(&key) {
            return copy(r);
        }
        let r = parse()?;
        let out = copy(&r)?;
        let mut kept = s.read.borrow_mut();
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(key, r);
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_once_and_copies() {
        let ctx = isl_context();
        let a = read_union_map(&ctx, "[n] -> { S[i] -> A[i] : 0 <= i < n }").unwrap();
        let b = read_union_map(&ctx, "[n] -> { S[i] -> A[i] : 0 <= i < n }").unwrap();
        assert!(a.is_equal(&b).unwrap());
        // The copies are independent objects: consuming one leaves the kept one.
        let c = a.reverse().unwrap();
        assert!(!c.is_equal(&b).unwrap());
        let s = read_union_set(&ctx, "{ S[i] : 0 <= i < 4 }").unwrap();
        assert!(!s.is_empty().unwrap());
    }

    #[test]
    fn budget_of_the_enclosing_analysis_comes_back() {
        let outer = isl_context();
        outer.set_max_operations(1000);
        {
            let inner = isl_context();
            assert_eq!(inner.get_max_operations(), 0);
            inner.set_max_operations(5);
        }
        assert_eq!(outer.get_max_operations(), 1000);
    }
}
