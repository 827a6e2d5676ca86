//! The C ABI (`mgpu*`, as MLIR's `gpu-to-llvm` lowering calls it) and device selection.
//!
//! The functions have no way to return an error to generated code, so a failure prints
//! `error: tessel runtime: ...` on stderr and exits with status 1, as a failed CUDA call
//! in MLIR's own runtime wrappers would abort.

use crate::profile::{self, Launch};
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// One device the runtime can drive.
pub trait Device: Send {
    /// `sim`, `cuda` or `hip`.
    fn kind(&self) -> &'static str;
    /// The GPU model whose figures the device reports (sim's), if it has one.
    fn model(&self) -> Option<&'static crate::gpus::Gpu> {
        None
    }
    /// The GPU's name (the modelled one for sim).
    fn gpu(&self) -> String;
    /// Threads the whole GPU holds resident at once (SMs x threads per SM), if known.
    fn resident_threads(&self) -> Option<u64> {
        self.model()
            .map(|g| g.sms as u64 * g.max_threads_per_sm as u64)
    }
    /// Loads a module image (a Tessel container, or a plain cubin/PTX/HSACO image).
    fn load(&mut self, image: &[u8]) -> Result<usize, String>;
    fn unload(&mut self, module: usize);
    fn function(&mut self, module: usize, name: &str) -> Result<usize, String>;
    /// The device address of module variable `name` (a CUDA `__device__` or
    /// `__constant__` variable) of `bytes` bytes; sim creates it zeroed at the first
    /// request.
    fn global(&mut self, module: usize, name: &str, bytes: u64) -> Result<*mut c_void, String> {
        let _ = (module, bytes);
        Err(format!(
            "the module variable '{name}': this device does not give module variables' addresses"
        ))
    }
    /// Runs a kernel to completion. `params` holds `nparams` pointers to the argument
    /// values, laid out as `gpu-to-llvm` passes them (memrefs as unpacked descriptors).
    fn launch(
        &mut self,
        function: usize,
        grid: [u64; 3],
        block: [u64; 3],
        shared_bytes: u32,
        params: &[*mut c_void],
    ) -> Result<Launch, String>;
    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String>;
    /// Memory that the host and the device both address (CUDA's managed memory,
    /// `cudaMallocManaged`), freed by [`Device::free`].
    fn alloc_managed(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        let _ = bytes;
        Err(format!("managed memory on {}", self.kind()))
    }
    fn free(&mut self, ptr: *mut c_void) -> Result<(), String>;
    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String>;
    /// Sets `count` elements of `width` bytes (1, 2 or 4) to `value`.
    fn memset(
        &mut self,
        dst: *mut c_void,
        value: u32,
        width: u32,
        count: u64,
    ) -> Result<(), String>;
}

pub(crate) struct Runtime {
    pub(crate) device: Box<dyn Device>,
}

static RUNTIME: OnceLock<Mutex<Runtime>> = OnceLock::new();

fn verbose() -> bool {
    std::env::var("TESSEL_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Set once the process is ending on an error: the module destructors that run at exit
/// must not take the runtime's lock, which the failing call may hold.
static DYING: AtomicBool = AtomicBool::new(false);

/// Prints a runtime error and ends the process.
pub fn die(msg: &str) -> ! {
    DYING.store(true, Ordering::SeqCst);
    // The launches so far are kept when they can be; the message below is the one error.
    let _ = profile::flush();
    eprintln!("error: tessel runtime: {msg}");
    std::process::exit(1)
}

/// Opens the device `TESSEL_DEVICE` names.
pub fn open_device() -> Result<Box<dyn Device>, String> {
    let want = std::env::var("TESSEL_DEVICE").unwrap_or_default();
    let want = if want.is_empty() {
        "auto"
    } else {
        want.as_str()
    };
    let sim = || -> Result<Box<dyn Device>, String> { Ok(Box::new(crate::sim::Sim::new()?)) };
    match want {
        "sim" => sim(),
        "cuda" => Ok(Box::new(crate::cuda::Cuda::open()?)),
        "hip" => Ok(Box::new(crate::hip::Hip::open()?)),
        "auto" => {
            let mut why = Vec::new();
            match crate::cuda::Cuda::open() {
                Ok(d) => return Ok(Box::new(d)),
                Err(e) => why.push(format!("cuda: {e}")),
            }
            match crate::hip::Hip::open() {
                Ok(d) => return Ok(Box::new(d)),
                Err(e) => why.push(format!("hip: {e}")),
            }
            if verbose() {
                eprintln!("tessel: no GPU ({}); using sim", why.join("; "));
            }
            sim()
        }
        other => Err(format!(
            "TESSEL_DEVICE='{other}' is not a device (expected auto, cuda, hip or sim)"
        )),
    }
}

extern "C" {
    fn atexit(cb: extern "C" fn()) -> i32;
    fn _exit(status: i32) -> !;
}

extern "C" fn at_exit() {
    if let Err(e) = profile::flush() {
        eprintln!("error: tessel runtime: {e}");
        // SAFETY: ending the process from an exit handler, where exit() may not be called.
        unsafe { _exit(1) };
    }
}

pub(crate) fn rt() -> MutexGuard<'static, Runtime> {
    let m = RUNTIME.get_or_init(|| {
        check(profile::check_writable());
        let device = open_device().unwrap_or_else(|e| die(&e));
        if verbose() {
            eprintln!("tessel: device {} ({})", device.kind(), device.gpu());
        }
        // SAFETY: registering a plain function with the C library.
        unsafe { atexit(at_exit) };
        Mutex::new(Runtime { device })
    });
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn check<T>(r: Result<T, String>) -> T {
    r.unwrap_or_else(|e| die(&e))
}

// Handles given to generated code are small integers offset from null.
fn handle(i: usize) -> *mut c_void {
    (i + 1) as *mut c_void
}
fn unhandle(p: *mut c_void) -> usize {
    (p as usize).wrapping_sub(1)
}

/// # Safety
/// `data` points to `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoad(data: *const c_void, size: u64) -> *mut c_void {
    let image = std::slice::from_raw_parts(data as *const u8, size as usize);
    handle(check(rt().device.load(image)))
}

/// # Safety
/// `data` points to `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleLoadJIT(
    data: *const c_void,
    _opt: i32,
    size: u64,
) -> *mut c_void {
    mgpuModuleLoad(data, size)
}

#[no_mangle]
pub extern "C" fn mgpuModuleUnload(module: *mut c_void) {
    if DYING.load(Ordering::SeqCst) {
        return;
    }
    rt().device.unload(unhandle(module));
    check(profile::flush());
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn mgpuModuleGetFunction(
    module: *mut c_void,
    name: *const c_char,
) -> *mut c_void {
    let name = CStr::from_ptr(name).to_string_lossy();
    handle(check(rt().device.function(unhandle(module), &name)))
}

/// # Safety
/// `params` holds `nparams` valid pointers to argument values.
#[no_mangle]
pub unsafe extern "C" fn mgpuLaunchKernel(
    function: *mut c_void,
    gx: i64,
    gy: i64,
    gz: i64,
    bx: i64,
    by: i64,
    bz: i64,
    smem: i32,
    _stream: *mut c_void,
    params: *mut *mut c_void,
    _extra: *mut *mut c_void,
    nparams: u64,
) {
    let dims = [gx, gy, gz, bx, by, bz];
    if dims.iter().any(|d| *d < 1) {
        // CUDA rejects empty grids as an invalid configuration.
        die(&format!(
            "invalid launch configuration: grid ({gx}, {gy}, {gz}), block ({bx}, {by}, {bz})"
        ));
    }
    let ps = if nparams == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(params, nparams as usize)
    };
    let mut r = rt();
    let l = check(r.device.launch(
        unhandle(function),
        [gx as u64, gy as u64, gz as u64],
        [bx as u64, by as u64, bz as u64],
        smem.max(0) as u32,
        ps,
    ));
    drop(r);
    profile::record(l);
}

#[no_mangle]
pub extern "C" fn mgpuStreamCreate() -> *mut c_void {
    // Every launch runs to completion before it returns: one implicit stream.
    drop(rt());
    handle(0)
}
#[no_mangle]
pub extern "C" fn mgpuStreamDestroy(_stream: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuStreamSynchronize(_stream: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuStreamWaitEvent(_stream: *mut c_void, _event: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuEventCreate() -> *mut c_void {
    handle(0)
}
#[no_mangle]
pub extern "C" fn mgpuEventDestroy(_event: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuEventSynchronize(_event: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuEventRecord(_event: *mut c_void, _stream: *mut c_void) {}
#[no_mangle]
pub extern "C" fn mgpuSetDefaultDevice(_device: i32) {}

#[no_mangle]
pub extern "C" fn mgpuMemAlloc(bytes: u64, _stream: *mut c_void, _host_shared: u8) -> *mut c_void {
    check(rt().device.alloc(bytes))
}

#[no_mangle]
pub extern "C" fn mgpuMemFree(ptr: *mut c_void, _stream: *mut c_void) {
    check(rt().device.free(ptr))
}

#[no_mangle]
pub extern "C" fn mgpuMemcpy(dst: *mut c_void, src: *mut c_void, bytes: u64, _stream: *mut c_void) {
    check(rt().device.memcpy(dst, src, bytes))
}

#[no_mangle]
pub extern "C" fn mgpuMemset32(dst: *mut c_void, value: u32, count: u64, _stream: *mut c_void) {
    check(rt().device.memset(dst, value, 4, count))
}

#[no_mangle]
pub extern "C" fn mgpuMemset16(dst: *mut c_void, value: u16, count: u64, _stream: *mut c_void) {
    check(rt().device.memset(dst, value as u32, 2, count))
}

/// Host memory is plain memory on every device this runtime drives (the generated code
/// copies explicitly), so registering it is a no-op.
#[no_mangle]
pub extern "C" fn mgpuMemHostRegisterMemRef(_rank: i64, _desc: *mut c_void, _elem: i64) {}
#[no_mangle]
pub extern "C" fn mgpuMemHostUnregisterMemRef(_rank: i64, _desc: *mut c_void, _elem: i64) {}

/// The extent of a launch's outermost thread dimension that `tessel-map-to-gpu`
/// (`coarsen=auto`) lets shrink: `extent`, or a half, a quarter or (where the kernel
/// runs `most` = 8 points side by side, `tessel-ilp-unroll`) an eighth of it where the
/// launch of `blocks` blocks of `threads` threads still fills the device
/// ([`crate::gpus::coarsened_extent`]). Each thread then covers more points of its
/// tile, which the kernel's point loops (stepping by the block's extent) allow.
#[no_mangle]
pub extern "C" fn tessel_block_extent(blocks: i64, threads: i64, extent: i64, most: i64) -> i64 {
    let capacity = rt().device.resident_threads();
    match capacity {
        Some(c) if blocks > 0 && threads > 0 && extent > 0 && most > 0 => {
            let (b, t, e, m) = (blocks as u64, threads as u64, extent as u64, most as u64);
            crate::gpus::coarsened_extent(c, b, t, e, m) as i64
        }
        _ => extent,
    }
}

/// The host's check before a region (the compiler's `transforms::overlap`): with
/// `overlap` set, the arrays `first` and `second` of the function whose region starts
/// at C line `line` (argument numbers; -1 for a global) overlap in memory where the
/// region copies them, which it assumes they do not (one of them is written): the
/// program stops with an error instead of computing other values than C's.
#[no_mangle]
pub extern "C" fn tessel_check_overlap(overlap: bool, line: i64, first: i64, second: i64) {
    if !overlap {
        return;
    }
    let name = |k: i64| match k {
        -1 => "a global array".to_string(),
        k => format!("argument {}", k + 1),
    };
    eprintln!(
        "tessel runtime: error: the region at line {line} uses {} and {}, which overlap in memory, and writes one of them; a region assumes the arrays it writes overlap no other (copy one first)",
        name(first),
        name(second)
    );
    std::process::exit(1);
}

// Printing helpers for hand-written host code run by tessel-run.
#[no_mangle]
pub extern "C" fn tessel_print_f32(v: f32) {
    println!("{v}");
}
#[no_mangle]
pub extern "C" fn tessel_print_f64(v: f64) {
    println!("{v}");
}
#[no_mangle]
pub extern "C" fn tessel_print_i64(v: i64) {
    println!("{v}");
}
#[no_mangle]
pub extern "C" fn tessel_print_i32(v: i32) {
    println!("{v}");
}
