//! The CUDA runtime API (`cudaMalloc`, `cudaMemcpy`, `<<<>>>` launches, events, ...)
//! over Tessel's devices, so that a CUDA program built by `tesselc prog.cu` runs on
//! sim, on an NVIDIA GPU (its PTX/cubin) or on any other device the runtime drives.
//!
//! How a program reaches it: clang compiles the host side with `--cuda-host-only`, so
//! a `<<<grid, block>>>` launch becomes `__cudaPushCallConfiguration`, then a call of
//! the kernel's host stub, which pops the configuration and calls `cudaLaunchKernel`
//! with the stub's address. clang's own registration (`__cudaRegisterFatBinary`) is not
//! emitted in that mode; tesselc adds a constructor that calls
//! [`__tessel_cuda_register_image`] with the module image (sim kernels, PTX, cubin) and
//! [`__tessel_cuda_register_function`] once per kernel, pairing the stub's address with
//! the kernel's name.
//!
//! Every call is synchronous (a launch runs to completion), so streams and events only
//! order what is already ordered; events read a clock that advances by each launch's
//! time on the device (sim's estimate, or the GPU's measured time), so a program that
//! times its kernels with `cudaEventElapsedTime` prints what the device reports. A
//! failure that would leave results wrong (a launch sim cannot run, a kernel not
//! registered) ends the program with `error: tessel runtime: ...`, as the rest of the
//! runtime does; the error codes a program may test are returned where CUDA has them.
//! `cudaGetDeviceProperties` is in the C++ part built with the program against the CUDA
//! headers (it fills a struct whose layout only the headers know), from
//! [`__tessel_cuda_device_info`].

use crate::api::{die, rt};
use crate::profile;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, MutexGuard};

/// `cudaError_t` values the layer returns.
const SUCCESS: i32 = 0;
const INVALID_VALUE: i32 = 1;
const INVALID_CONFIGURATION: i32 = 9;
const INVALID_DEVICE: i32 = 101;
const INVALID_SYMBOL: i32 = 13;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

struct Image {
    bytes: &'static [u8],
    module: Option<usize>,
    vars: Vec<Var>,
}

/// A `__device__` or `__constant__` variable of an image.
struct Var {
    name: String,
    bytes: u64,
    /// Its initial value (the device initializer, or the host shadow's bytes); `None`:
    /// zero.
    init: Option<&'static [u8]>,
    /// The host shadow variable whose address `cudaMemcpyToSymbol` receives.
    host: usize,
    /// Its device address, once the module is loaded.
    device: Option<usize>,
}

struct Function {
    image: usize,
    name: String,
    nparams: usize,
    /// Module variables the kernel reaches, passed to sim after the parameters.
    globals: Vec<String>,
    handle: Option<usize>,
}

#[derive(Default)]
struct Registry {
    images: Vec<Image>,
    /// By the host stub's address.
    functions: HashMap<usize, Function>,
    /// Device time so far, seconds (the clock events read).
    clock: f64,
    events: Vec<f64>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut g = registry();
    f(g.get_or_insert_with(Registry::default))
}

thread_local! {
    static CONFIGS: RefCell<Vec<(Dim3, Dim3, usize, *mut c_void)>> = const { RefCell::new(Vec::new()) };
    static LAST_ERROR: RefCell<i32> = const { RefCell::new(SUCCESS) };
}

fn fail(code: i32) -> i32 {
    LAST_ERROR.with(|e| *e.borrow_mut() = code);
    code
}

/// Registers a module image (a Tessel container) the program embeds; returns its handle.
///
/// # Safety
/// `image` points to `len` bytes that live as long as the program.
#[no_mangle]
pub unsafe extern "C" fn __tessel_cuda_register_image(image: *const u8, len: u64) -> u64 {
    let bytes = std::slice::from_raw_parts(image, len as usize);
    with_registry(|r| {
        r.images.push(Image {
            bytes,
            module: None,
            vars: Vec::new(),
        });
        r.images.len() as u64 - 1
    })
}

/// Pairs a kernel's host stub with its name in image `image`; `globals` names the
/// module variables it reaches, comma-separated.
///
/// # Safety
/// `name` and `globals` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __tessel_cuda_register_function(
    image: u64,
    stub: *const c_void,
    name: *const c_char,
    nparams: u32,
    globals: *const c_char,
) {
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    let globals = CStr::from_ptr(globals)
        .to_string_lossy()
        .split(',')
        .filter(|g| !g.is_empty())
        .map(String::from)
        .collect();
    with_registry(|r| {
        r.functions.insert(
            stub as usize,
            Function {
                image: image as usize,
                name,
                nparams: nparams as usize,
                globals,
                handle: None,
            },
        )
    });
}

/// Registers a module variable of image `image`: its host shadow (`host`, the address
/// the program names it by), name, size and initial value (`init`, `bytes` bytes, or
/// null for zero).
///
/// # Safety
/// `name` is NUL-terminated; `init`, when not null, points to `bytes` bytes that live as
/// long as the program.
#[no_mangle]
pub unsafe extern "C" fn __tessel_cuda_register_var(
    image: u64,
    host: *const c_void,
    name: *const c_char,
    bytes: u64,
    init: *const u8,
) {
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    let init = (!init.is_null()).then(|| std::slice::from_raw_parts(init, bytes as usize));
    with_registry(|r| {
        if let Some(i) = r.images.get_mut(image as usize) {
            i.vars.push(Var {
                name,
                bytes,
                init,
                host: host as usize,
                device: None,
            });
        }
    });
}

/// Loads image `image` on the device once, with its variables set to their initial
/// values; returns the module.
fn module(r: &mut Registry, device: &mut dyn crate::api::Device, image: usize) -> usize {
    if let Some(m) = r.images[image].module {
        return m;
    }
    let img = &mut r.images[image];
    let m = device.load(img.bytes).unwrap_or_else(|e| die(&e));
    img.module = Some(m);
    for v in &mut img.vars {
        let p = device
            .global(m, &v.name, v.bytes)
            .unwrap_or_else(|e| die(&e));
        if let Some(init) = v.init {
            device
                .memcpy(p, init.as_ptr() as *const c_void, v.bytes)
                .unwrap_or_else(|e| die(&e));
        }
        v.device = Some(p as usize);
    }
    m
}

/// The device address of the variable whose host shadow is at `symbol`, and its size.
fn symbol(symbol: *const c_void) -> Option<(usize, u64)> {
    let mut reg = registry();
    let r = reg.as_mut()?;
    let image = r.images.iter().position(|i| {
        i.vars
            .iter()
            .any(|v| v.host == symbol as usize && v.host != 0)
    })?;
    let mut d = rt();
    module(r, d.device.as_mut(), image);
    r.images[image]
        .vars
        .iter()
        .find(|v| v.host == symbol as usize)
        .and_then(|v| Some((v.device?, v.bytes)))
}

/// # Safety
/// `src` is readable for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbol(
    sym: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    _kind: i32,
) -> i32 {
    match symbol(sym) {
        Some((dev, bytes)) if (offset + count) as u64 <= bytes => {
            cudaMemcpy((dev + offset) as *mut c_void, src, count, 1)
        }
        _ => fail(INVALID_SYMBOL),
    }
}

/// # Safety
/// `dst` is writable for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    sym: *const c_void,
    count: usize,
    offset: usize,
    _kind: i32,
) -> i32 {
    match symbol(sym) {
        Some((dev, bytes)) if (offset + count) as u64 <= bytes => {
            cudaMemcpy(dst, (dev + offset) as *const c_void, count, 2)
        }
        _ => fail(INVALID_SYMBOL),
    }
}

/// # Safety
/// As [`cudaMemcpyToSymbol`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
    sym: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: i32,
    _stream: *mut c_void,
) -> i32 {
    cudaMemcpyToSymbol(sym, src, count, offset, kind)
}

/// # Safety
/// As [`cudaMemcpyFromSymbol`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    sym: *const c_void,
    count: usize,
    offset: usize,
    kind: i32,
    _stream: *mut c_void,
) -> i32 {
    cudaMemcpyFromSymbol(dst, sym, count, offset, kind)
}

/// # Safety
/// `ptr` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolAddress(ptr: *mut *mut c_void, sym: *const c_void) -> i32 {
    match (symbol(sym), ptr.is_null()) {
        (Some((dev, _)), false) => {
            *ptr = dev as *mut c_void;
            SUCCESS
        }
        _ => fail(INVALID_SYMBOL),
    }
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, sym: *const c_void) -> i32 {
    match (symbol(sym), size.is_null()) {
        (Some((_, bytes)), false) => {
            *size = bytes as usize;
            SUCCESS
        }
        _ => fail(INVALID_SYMBOL),
    }
}

#[no_mangle]
pub extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> u32 {
    CONFIGS.with(|c| c.borrow_mut().push((grid, block, shared, stream)));
    0
}

/// # Safety
/// The pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> i32 {
    match CONFIGS.with(|c| c.borrow_mut().pop()) {
        Some((g, b, s, st)) => {
            *grid = g;
            *block = b;
            *shared = s;
            *stream = st;
            SUCCESS
        }
        None => fail(INVALID_CONFIGURATION),
    }
}

/// # Safety
/// `args` holds one pointer per kernel parameter, as CUDA's `cudaLaunchKernel` takes.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    _stream: *mut c_void,
) -> i32 {
    let dims = [grid.x, grid.y, grid.z, block.x, block.y, block.z];
    if dims.contains(&0) {
        // CUDA refuses the launch and returns the error, which programs often ignore:
        // say so, since nothing runs.
        eprintln!(
            "tessel runtime: warning: launch with an empty grid ({}, {}, {}) or block ({}, {}, {}) runs nothing (cudaErrorInvalidConfiguration)",
            grid.x, grid.y, grid.z, block.x, block.y, block.z
        );
        return fail(INVALID_CONFIGURATION);
    }
    let mut reg = registry();
    let Some(r) = reg.as_mut() else {
        die("a kernel launch, but the program registered no kernels (was it built by tesselc?)")
    };
    let Some(f) = r.functions.get(&(func as usize)) else {
        die(&format!(
            "launch of {func:p}, which is not a kernel this program registered"
        ))
    };
    let (image, name, nparams, handle) = (f.image, f.name.clone(), f.nparams, f.handle);
    let globals = f.globals.clone();
    let mut device = rt();
    let module = module(r, device.device.as_mut(), image);
    let handle = match handle {
        Some(h) => h,
        None => {
            let h = device
                .device
                .function(module, &name)
                .unwrap_or_else(|e| die(&e));
            if let Some(f) = r.functions.get_mut(&(func as usize)) {
                f.handle = Some(h);
            }
            h
        }
    };
    let mut params: Vec<*mut c_void> = if nparams == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(args, nparams).to_vec()
    };
    // The module variables the kernel reaches follow its parameters, as sim's form takes
    // them (a GPU's kernel reads them from its module and ignores these).
    let mut addresses: Vec<u64> = globals
        .iter()
        .map(|g| {
            r.images[image]
                .vars
                .iter()
                .find(|v| v.name == *g)
                .and_then(|v| v.device)
                .unwrap_or_else(|| die(&format!("kernel '{name}' reaches the variable '{g}', which the program did not register")))
                as u64
        })
        .collect();
    params.extend(addresses.iter_mut().map(|a| a as *mut u64 as *mut c_void));
    let params = &params[..];
    let l = device
        .device
        .launch(
            handle,
            [grid.x as u64, grid.y as u64, grid.z as u64],
            [block.x as u64, block.y as u64, block.z as u64],
            u32::try_from(shared).unwrap_or(u32::MAX),
            params,
        )
        .unwrap_or_else(|e| die(&e));
    drop(device);
    r.clock += l.measured_time_s.or(l.estimated_time_s).unwrap_or(0.0);
    drop(reg);
    profile::record(l);
    SUCCESS
}

/// Stores in `*ptr` what `alloc` gives for `bytes` on the device (`call` names the CUDA
/// call in an error, which ends the program).
///
/// # Safety
/// `ptr` is null or writable.
unsafe fn allocate(
    ptr: *mut *mut c_void,
    bytes: usize,
    call: &str,
    alloc: impl FnOnce(&mut dyn crate::api::Device, u64) -> Result<*mut c_void, String>,
) -> i32 {
    if ptr.is_null() {
        return fail(INVALID_VALUE);
    }
    *ptr = alloc(&mut *rt().device, bytes as u64)
        .unwrap_or_else(|e| die(&format!("{call} of {bytes} bytes: {e}")));
    SUCCESS
}

/// # Safety
/// `ptr` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaMalloc(ptr: *mut *mut c_void, bytes: usize) -> i32 {
    allocate(ptr, bytes, "cudaMalloc", |d, b| d.alloc(b))
}

/// Memory the host and the kernels both address: on sim, device memory (host memory
/// sim runs the kernels in); on a GPU, the driver's managed memory. Every call is
/// synchronous, so the host may read it after any launch.
///
/// # Safety
/// `ptr` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocManaged(
    ptr: *mut *mut c_void,
    bytes: usize,
    _flags: u32,
) -> i32 {
    allocate(ptr, bytes, "cudaMallocManaged", |d, b| d.alloc_managed(b))
}

#[no_mangle]
pub extern "C" fn cudaFree(ptr: *mut c_void) -> i32 {
    if !ptr.is_null() {
        rt().device
            .free(ptr)
            .unwrap_or_else(|e| die(&format!("cudaFree: {e}")));
    }
    SUCCESS
}

/// Page-locked host memory is host memory here.
///
/// # Safety
/// `ptr` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, bytes: usize) -> i32 {
    if ptr.is_null() {
        return fail(INVALID_VALUE);
    }
    *ptr = libc_malloc(bytes.max(1));
    SUCCESS
}

/// # Safety
/// As [`cudaMallocHost`].
#[no_mangle]
pub unsafe extern "C" fn cudaHostAlloc(ptr: *mut *mut c_void, bytes: usize, _flags: u32) -> i32 {
    cudaMallocHost(ptr, bytes)
}

/// # Safety
/// `ptr` came from [`cudaMallocHost`].
#[no_mangle]
pub unsafe extern "C" fn cudaFreeHost(ptr: *mut c_void) -> i32 {
    libc_free(ptr);
    SUCCESS
}

extern "C" {
    #[link_name = "malloc"]
    fn libc_malloc(n: usize) -> *mut c_void;
    #[link_name = "free"]
    fn libc_free(p: *mut c_void);
}

/// `kind`: 0 host to host, 1 to the device, 2 from it, 3 device to device, 4 inferred.
///
/// # Safety
/// The ranges are valid for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: i32,
) -> i32 {
    if bytes == 0 {
        return SUCCESS;
    }
    match kind {
        0 => std::ptr::copy(src as *const u8, dst as *mut u8, bytes),
        1..=4 => rt()
            .device
            .memcpy(dst, src, bytes as u64)
            .unwrap_or_else(|e| die(&format!("cudaMemcpy: {e}"))),
        _ => return fail(INVALID_VALUE),
    }
    SUCCESS
}

/// # Safety
/// As [`cudaMemcpy`].
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: i32,
    _stream: *mut c_void,
) -> i32 {
    cudaMemcpy(dst, src, bytes, kind)
}

/// Sets `bytes` bytes to `value`, in the widest units the range allows.
#[no_mangle]
pub extern "C" fn cudaMemset(dst: *mut c_void, value: i32, bytes: usize) -> i32 {
    if bytes == 0 {
        return SUCCESS;
    }
    let b = value as u8 as u32;
    let (width, v) = if bytes % 4 == 0 && dst as usize % 4 == 0 {
        (4, b * 0x0101_0101)
    } else if bytes % 2 == 0 && dst as usize % 2 == 0 {
        (2, b * 0x0101)
    } else {
        (1, b)
    };
    rt().device
        .memset(dst, v, width, (bytes / width as usize) as u64)
        .unwrap_or_else(|e| die(&format!("cudaMemset: {e}")));
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cudaMemsetAsync(
    dst: *mut c_void,
    value: i32,
    bytes: usize,
    _stream: *mut c_void,
) -> i32 {
    cudaMemset(dst, value, bytes)
}

macro_rules! no_op {
    ($($name:ident ( $($arg:ident : $ty:ty),* );)*) => {$(
        /// Nothing to do: every call of this layer is synchronous, and a launch's cache
        /// or resource preferences do not change its results.
        #[no_mangle]
        pub extern "C" fn $name($(_ : $ty),*) -> i32 {
            SUCCESS
        }
    )*};
}

no_op! {
    cudaDeviceSynchronize();
    cudaThreadSynchronize();
    cudaDeviceReset();
    cudaThreadExit();
    cudaStreamSynchronize(s: *mut c_void);
    cudaStreamDestroy(s: *mut c_void);
    cudaEventSynchronize(e: *mut c_void);
    cudaEventDestroy(e: *mut c_void);
    cudaFuncSetCacheConfig(f: *const c_void, c: i32);
    cudaDeviceSetCacheConfig(c: i32);
    cudaDeviceSetSharedMemConfig(c: i32);
    cudaFuncSetAttribute(f: *const c_void, a: i32, v: i32);
    cudaSetDeviceFlags(f: u32);
    cudaProfilerStart();
    cudaProfilerStop();
    cudaStreamQuery(s: *mut c_void);
    cudaEventQuery(e: *mut c_void);
    cudaStreamWaitEvent(s: *mut c_void, e: *mut c_void, f: u32);
}

/// # Safety
/// `stream` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreate(stream: *mut *mut c_void) -> i32 {
    if !stream.is_null() {
        *stream = 1 as *mut c_void;
    }
    SUCCESS
}

/// # Safety
/// As [`cudaStreamCreate`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(stream: *mut *mut c_void, _flags: u32) -> i32 {
    cudaStreamCreate(stream)
}

/// # Safety
/// As [`cudaStreamCreate`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(
    stream: *mut *mut c_void,
    _flags: u32,
    _priority: i32,
) -> i32 {
    cudaStreamCreate(stream)
}

/// # Safety
/// `event` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaEventCreate(event: *mut *mut c_void) -> i32 {
    if event.is_null() {
        return fail(INVALID_VALUE);
    }
    *event = with_registry(|r| {
        r.events.push(0.0);
        r.events.len() as *mut c_void
    });
    SUCCESS
}

/// # Safety
/// As [`cudaEventCreate`].
#[no_mangle]
pub unsafe extern "C" fn cudaEventCreateWithFlags(event: *mut *mut c_void, _flags: u32) -> i32 {
    cudaEventCreate(event)
}

#[no_mangle]
pub extern "C" fn cudaEventRecord(event: *mut c_void, _stream: *mut c_void) -> i32 {
    with_registry(
        |r| match r.events.get_mut((event as usize).wrapping_sub(1)) {
            Some(e) => {
                *e = r.clock;
                SUCCESS
            }
            None => fail(INVALID_VALUE),
        },
    )
}

/// Milliseconds of device time between two recorded events.
///
/// # Safety
/// `ms` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaEventElapsedTime(
    ms: *mut f32,
    start: *mut c_void,
    end: *mut c_void,
) -> i32 {
    let t = with_registry(|r| {
        let at = |e: *mut c_void| r.events.get((e as usize).wrapping_sub(1)).copied();
        Some(at(end)? - at(start)?)
    });
    match (t, ms.is_null()) {
        (Some(t), false) => {
            *ms = (t * 1e3) as f32;
            SUCCESS
        }
        _ => fail(INVALID_VALUE),
    }
}

#[no_mangle]
pub extern "C" fn cudaGetLastError() -> i32 {
    LAST_ERROR.with(|e| std::mem::replace(&mut *e.borrow_mut(), SUCCESS))
}

#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> i32 {
    LAST_ERROR.with(|e| *e.borrow())
}

/// (code, name, description) of the errors this layer returns.
const ERRORS: [(i32, &CStr, &CStr); 6] = [
    (SUCCESS, c"cudaSuccess", c"no error"),
    (INVALID_VALUE, c"cudaErrorInvalidValue", c"invalid argument"),
    (
        INVALID_CONFIGURATION,
        c"cudaErrorInvalidConfiguration",
        c"invalid configuration argument",
    ),
    (
        INVALID_DEVICE,
        c"cudaErrorInvalidDevice",
        c"invalid device ordinal",
    ),
    (
        INVALID_SYMBOL,
        c"cudaErrorInvalidSymbol",
        c"invalid device symbol",
    ),
    (-1, c"cudaErrorUnknown", c"unrecognized error code"),
];

fn error_entry(code: i32) -> &'static (i32, &'static CStr, &'static CStr) {
    ERRORS
        .iter()
        .find(|e| e.0 == code)
        .unwrap_or(&ERRORS[ERRORS.len() - 1])
}

#[no_mangle]
pub extern "C" fn cudaGetErrorString(code: i32) -> *const c_char {
    error_entry(code).2.as_ptr()
}

#[no_mangle]
pub extern "C" fn cudaGetErrorName(code: i32) -> *const c_char {
    error_entry(code).1.as_ptr()
}

#[no_mangle]
pub extern "C" fn cudaSetDevice(device: i32) -> i32 {
    if device == 0 {
        SUCCESS
    } else {
        fail(INVALID_DEVICE)
    }
}

/// # Safety
/// `device` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDevice(device: *mut i32) -> i32 {
    if device.is_null() {
        return fail(INVALID_VALUE);
    }
    *device = 0;
    SUCCESS
}

/// # Safety
/// `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut i32) -> i32 {
    if count.is_null() {
        return fail(INVALID_VALUE);
    }
    *count = 1;
    SUCCESS
}

/// The figures `cudaGetDeviceProperties` reports, in this order: SMs, clock (kHz),
/// compute capability major and minor, shared memory per block, per SM, registers per
/// SM, threads per SM, L2 bytes, memory bus width (bits), memory clock (kHz), total
/// global memory. The name goes to `name` (`len` bytes, NUL-terminated). Returns the
/// number of figures written, or -1 for a device other than 0.
///
/// # Safety
/// `name` has room for `len` bytes and `out` for `n` figures.
#[no_mangle]
pub unsafe extern "C" fn __tessel_cuda_device_info(
    device: i32,
    name: *mut c_char,
    len: usize,
    out: *mut i64,
    n: usize,
) -> i32 {
    if device != 0 {
        return -1;
    }
    let d = rt();
    let full = match d.device.model() {
        Some(g) => format!("{} (Tessel {} model)", g.full_name, d.device.kind()),
        None => d.device.gpu(),
    };
    let g = *d.device.model().unwrap_or(&crate::gpus::GPUS[0]);
    drop(d);
    let (major, minor) = compute_capability(g.name);
    // DRAM bandwidth = 2 (DDR) x clock x bus width / 8: report a 4096-bit bus and the
    // memory clock that gives the model's bandwidth.
    let bus = 4096i64;
    let mem_khz = (g.dram_gbs * 1e9 * 8.0 / 2.0 / bus as f64 / 1e3) as i64;
    let figures = [
        g.sms as i64,
        (g.clock_ghz * 1e6) as i64,
        major,
        minor,
        g.smem_per_block as i64,
        g.smem_per_sm as i64,
        g.regs_per_sm as i64,
        g.max_threads_per_sm as i64,
        (g.l2_kib * 1024) as i64,
        bus,
        mem_khz,
        80 << 30,
    ];
    for (i, f) in figures.iter().take(n).enumerate() {
        *out.add(i) = *f;
    }
    if len > 0 {
        let bytes = full.as_bytes();
        let k = bytes.len().min(len - 1);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), name as *mut u8, k);
        *name.add(k) = 0;
    }
    figures.len().min(n) as i32
}

/// The compute capability of a modelled GPU.
fn compute_capability(model: &str) -> (i64, i64) {
    match model {
        "h100" => (9, 0),
        "a100" => (8, 0),
        "gtx980" => (5, 2),
        "k20" => (3, 5),
        "gtx680" | "gtx690" => (3, 0),
        "gtx480" | "c2050" | "m2070" => (2, 0),
        "g80" => (1, 0),
        _ => (9, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_configurations_nest() {
        let d = |x| Dim3 { x, y: 1, z: 1 };
        __cudaPushCallConfiguration(d(1), d(2), 0, std::ptr::null_mut());
        __cudaPushCallConfiguration(d(3), d(4), 8, std::ptr::null_mut());
        let (mut g, mut b, mut s, mut st) =
            (Dim3::default(), Dim3::default(), 0, std::ptr::null_mut());
        // SAFETY: locals.
        unsafe {
            assert_eq!(
                __cudaPopCallConfiguration(&mut g, &mut b, &mut s, &mut st),
                0
            );
            assert_eq!((g.x, b.x, s), (3, 4, 8));
            assert_eq!(
                __cudaPopCallConfiguration(&mut g, &mut b, &mut s, &mut st),
                0
            );
            assert_eq!((g.x, b.x, s), (1, 2, 0));
            assert_eq!(
                __cudaPopCallConfiguration(&mut g, &mut b, &mut s, &mut st),
                INVALID_CONFIGURATION
            );
        }
        assert_eq!(cudaGetLastError(), INVALID_CONFIGURATION);
        assert_eq!(cudaGetLastError(), SUCCESS);
    }

    #[test]
    fn error_strings() {
        // SAFETY: static strings.
        let s = |p| unsafe { CStr::from_ptr(p) }.to_str().unwrap();
        assert_eq!(s(cudaGetErrorString(0)), "no error");
        assert_eq!(s(cudaGetErrorName(101)), "cudaErrorInvalidDevice");
        assert_eq!(s(cudaGetErrorString(12345)), "unrecognized error code");
    }
}
