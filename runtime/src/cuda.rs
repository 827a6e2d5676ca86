//! The cuda device: the CUDA driver API (`libcuda.so.1`, else `libcuda.so`), loaded at
//! run time with `libloading` so that nothing of CUDA is needed to build the runtime.
//!
//! [`Cuda::open`] initializes the driver and makes device 0's primary context current.
//! [`Device::load`] takes the `cubin` entry of Tessel's module container
//! ([`FatBinary`]); when the driver rejects it (a cubin for another architecture) or there
//! is none, it JIT-compiles the `ptx` entry instead. An image that is not a container is
//! handed to the driver as it is (cubin, NVIDIA fatbinary, or PTX text, which gets its
//! terminating NUL). Launches use the driver's own argument packing (the `params` array
//! `gpu-to-llvm` builds), run to completion, and are timed with events; registers and
//! static shared memory come from the function's attributes, occupancy from the driver's
//! occupancy calculator. A GPU gives no counters.

use crate::api::Device;
use crate::bytecode::{CodeKind, FatBinary};
use crate::profile::Launch;
use libloading::Library;
use std::ffi::{c_char, c_void, CStr, CString};

type P = *mut c_void;

/// Declares a library's entry points as a struct of plain function pointers (each
/// returning the API's status code, an `int`-sized enum), copied out of the `Library`'s
/// symbols: the required ones, whose absence fails [`load`](Self), and optional ones
/// (`Option` fields, `None` when the library lacks them).
macro_rules! api {
    ($lib:literal, $name:ident {
        $($f:ident ( $($a:ty),* );)*
    } optional {
        $($g:ident ( $($b:ty),* );)*
    }) => {
        #[allow(non_snake_case)]
        struct $name {
            $($f: unsafe extern "C" fn($($a),*) -> i32,)*
            $($g: Option<unsafe extern "C" fn($($b),*) -> i32>,)*
        }
        impl $name {
            /// # Safety
            /// The symbols must have the declared signatures, and `lib` must outlive the
            /// returned pointers.
            unsafe fn load(lib: &Library) -> Result<Self, String> {
                Ok($name {
                    $($f: *lib
                        .get::<unsafe extern "C" fn($($a),*) -> i32>(
                            concat!(stringify!($f), "\0").as_bytes(),
                        )
                        .map_err(|e| format!("{} lacks {}: {e}", $lib, stringify!($f)))?,)*
                    $($g: lib
                        .get::<unsafe extern "C" fn($($b),*) -> i32>(
                            concat!(stringify!($g), "\0").as_bytes(),
                        )
                        .ok()
                        .map(|s| *s),)*
                })
            }
        }
    };
}
pub(crate) use api;

/// Opens the first of `names` that loads; `missing` is the error when none is installed.
/// A library that exists but fails to load is reported with the loader's reason.
pub(crate) fn open_library(names: &[&str], missing: &str) -> Result<Library, String> {
    let mut other = None;
    for n in names {
        // SAFETY: loading a vendor's driver library, whose initializers are sound.
        match unsafe { Library::new(n) } {
            Ok(l) => return Ok(l),
            Err(e) => {
                let e = e.to_string();
                if other.is_none() && !e.contains("No such file") && !e.contains("cannot open") {
                    other = Some(format!("{n} could not be loaded: {e}"));
                }
            }
        }
    }
    Err(other.unwrap_or_else(|| missing.to_string()))
}

api!("libcuda.so.1", Api {
    cuInit(u32);
    cuDeviceGetCount(*mut i32);
    cuDeviceGet(*mut i32, i32);
    cuDeviceGetName(*mut c_char, i32, i32);
    cuDeviceGetAttribute(*mut i32, i32, i32);
    cuDevicePrimaryCtxRetain(*mut P, i32);
    cuCtxSetCurrent(P);
    cuModuleLoadData(*mut P, *const c_void);
    cuModuleUnload(P);
    cuModuleGetFunction(*mut P, P, *const c_char);
    cuFuncGetAttribute(*mut i32, i32, P);
    cuLaunchKernel(P, u32, u32, u32, u32, u32, u32, u32, P, *mut P, *mut P);
    cuMemAlloc_v2(*mut u64, usize);
    cuMemFree_v2(u64);
    cuMemcpy(u64, u64, usize);
    cuMemsetD32_v2(u64, u32, usize);
    cuMemsetD16_v2(u64, u16, usize);
    cuEventCreate(*mut P, u32);
    cuEventRecord(P, P);
    cuEventSynchronize(P);
    cuEventElapsedTime(*mut f32, P, P);
    cuEventDestroy_v2(P);
} optional {
    cuGetErrorName(i32, *mut *const c_char);
    cuGetErrorString(i32, *mut *const c_char);
    cuModuleLoadDataEx(*mut P, *const c_void, u32, *mut i32, *mut P);
    cuOccupancyMaxActiveBlocksPerMultiprocessor(*mut i32, P, i32, usize);
    cuDevicePrimaryCtxRelease_v2(i32);
    cuModuleGetGlobal_v2(*mut u64, *mut usize, P, *const c_char);
    cuMemsetD8_v2(u64, u8, usize);
    cuMemAllocManaged(*mut u64, usize, u32);
});

const CUDA_ERROR_NO_DEVICE: i32 = 100;
const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: i32 = 1;
const CU_FUNC_ATTRIBUTE_NUM_REGS: i32 = 4;
const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: i32 = 39;
const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: i32 = 16;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: i32 = 75;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: i32 = 76;
const CU_JIT_ERROR_LOG_BUFFER: i32 = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: i32 = 6;
const WARP: u64 = 32;

/// A kernel looked up in a loaded module.
#[derive(Clone)]
struct Function {
    handle: P,
    name: String,
    registers: u32,
    static_shared: u64,
}

/// The CUDA device: the driver library, device 0's primary context, and the modules and
/// functions loaded so far (handed out as indices).
pub struct Cuda {
    api: Api,
    dev: i32,
    ctx: P,
    name: String,
    max_threads_per_sm: i32,
    sms: i32,
    modules: Vec<Option<P>>,
    functions: Vec<Function>,
    // Declared last so that it is dropped last: the function pointers in `api` point
    // into it.
    _lib: Library,
}

// SAFETY: the raw pointers are driver handles (context, modules, functions), valid on
// any thread once the context is current there. The runtime serializes every call through
// one mutex, and every call that uses the context first makes it current on the calling
// thread (`Cuda::current`).
unsafe impl Send for Cuda {}

impl Cuda {
    /// Loads the driver, initializes it, and makes device 0's primary context current.
    pub fn open() -> Result<Cuda, String> {
        let lib = open_library(
            &["libcuda.so.1", "libcuda.so"],
            "libcuda.so.1 not found (no NVIDIA driver)",
        )?;
        // SAFETY: the declared signatures are the driver API's; `lib` is kept in `Cuda`.
        let api = unsafe { Api::load(&lib)? };
        let mut c = Cuda {
            api,
            dev: 0,
            ctx: std::ptr::null_mut(),
            name: String::new(),
            max_threads_per_sm: 0,
            sms: 0,
            modules: Vec::new(),
            functions: Vec::new(),
            _lib: lib,
        };
        // SAFETY: driver calls with valid out-pointers and buffer sizes.
        unsafe {
            let r = (c.api.cuInit)(0);
            if r == CUDA_ERROR_NO_DEVICE {
                return Err("no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)".into());
            }
            c.check(r, "cuInit")?;
            let mut n = 0;
            c.check((c.api.cuDeviceGetCount)(&mut n), "cuDeviceGetCount")?;
            if n < 1 {
                return Err("no CUDA device".into());
            }
            let mut dev = 0;
            c.check((c.api.cuDeviceGet)(&mut dev, 0), "cuDeviceGet")?;
            c.dev = dev;
            let mut buf = [0 as c_char; 256];
            c.check(
                (c.api.cuDeviceGetName)(buf.as_mut_ptr(), buf.len() as i32 - 1, dev),
                "cuDeviceGetName",
            )?;
            c.name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
            let mut t = 0;
            if (c.api.cuDeviceGetAttribute)(
                &mut t,
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                dev,
            ) == 0
            {
                c.max_threads_per_sm = t;
            }
            let mut sms = 0;
            if (c.api.cuDeviceGetAttribute)(&mut sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
                == 0
            {
                c.sms = sms;
            }
            let mut ctx = std::ptr::null_mut();
            c.check(
                (c.api.cuDevicePrimaryCtxRetain)(&mut ctx, dev),
                "cuDevicePrimaryCtxRetain",
            )?;
            c.ctx = ctx;
            c.current()?;
        }
        Ok(c)
    }

    /// `CUDA_ERROR_NAME (description)` for a status code.
    fn error(&self, r: i32) -> String {
        let text = |f: Option<unsafe extern "C" fn(i32, *mut *const c_char) -> i32>| {
            let f = f?;
            let mut s: *const c_char = std::ptr::null();
            // SAFETY: the driver writes a pointer to a static string, or fails.
            unsafe {
                (f(r, &mut s) == 0 && !s.is_null())
                    .then(|| CStr::from_ptr(s).to_string_lossy().into_owned())
            }
        };
        match (
            text(self.api.cuGetErrorName),
            text(self.api.cuGetErrorString),
        ) {
            (Some(n), Some(s)) => format!("{n} ({s})"),
            (Some(n), None) => n,
            (None, Some(s)) => format!("CUDA error {r} ({s})"),
            (None, None) => format!("CUDA error {r}"),
        }
    }

    fn check(&self, r: i32, what: &str) -> Result<(), String> {
        if r == 0 {
            Ok(())
        } else {
            Err(format!("{what} failed: {}", self.error(r)))
        }
    }

    /// Makes the context current on the calling thread.
    fn current(&self) -> Result<(), String> {
        // SAFETY: a context retained in `open`.
        self.check(
            unsafe { (self.api.cuCtxSetCurrent)(self.ctx) },
            "cuCtxSetCurrent",
        )
    }

    /// Loads a cubin or fatbinary image.
    fn load_binary(&self, image: &[u8]) -> Result<P, String> {
        let mut m: P = std::ptr::null_mut();
        // SAFETY: `image` outlives the call; the driver copies what it keeps.
        let r = unsafe { (self.api.cuModuleLoadData)(&mut m, image.as_ptr() as *const c_void) };
        self.check(r, "cuModuleLoadData").map(|_| m)
    }

    /// JIT-compiles and loads PTX text, with the JIT's error log in the message on failure.
    fn load_ptx(&self, ptx: &[u8]) -> Result<P, String> {
        let text = nul_terminated(ptx);
        let Some(load_ex) = self.api.cuModuleLoadDataEx else {
            return self.load_binary(&text);
        };
        let mut log = vec![0u8; 16 * 1024];
        let mut opts = [CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        // Option values are pointer-sized: the buffer, and its size cast to a pointer.
        let mut vals: [P; 2] = [log.as_mut_ptr() as P, log.len() as P];
        let mut m: P = std::ptr::null_mut();
        // SAFETY: `text` is NUL-terminated; the log buffer outlives the call and its size
        // is the one given.
        let r = unsafe {
            load_ex(
                &mut m,
                text.as_ptr() as *const c_void,
                opts.len() as u32,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        if r == 0 {
            return Ok(m);
        }
        let end = log.iter().position(|b| *b == 0).unwrap_or(log.len());
        let log = String::from_utf8_lossy(&log[..end]).trim().to_string();
        let mut e = format!("cuModuleLoadData (PTX JIT) failed: {}", self.error(r));
        if !log.is_empty() {
            e += &format!("\n{log}");
        }
        Err(e)
    }

    /// Loads a module from a Tessel container: the newest cubin the driver accepts (it
    /// rejects one built for another architecture), else the newest PTX it can compile.
    fn load_container(&self, fb: &FatBinary) -> Result<P, String> {
        let mut errors = Vec::new();
        for c in fb.objects(CodeKind::Cubin) {
            match self.load_binary(&c.bytes) {
                Ok(m) => return Ok(m),
                Err(e) => errors.push(format!("cubin for {}: {e}", c.arch)),
            }
        }
        for c in fb.objects(CodeKind::Ptx) {
            match self.load_ptx(&c.bytes) {
                Ok(m) => return Ok(m),
                Err(e) => errors.push(format!("PTX for {}: {e}", c.arch)),
            }
        }
        if errors.is_empty() {
            return Err(format!(
                "the module image holds no cubin or PTX (built for {}; rebuild with --offload-arch=sm_XX for {})",
                match fb.archs().as_slice() {
                    [] => "sim only".to_string(),
                    a => a.join(", "),
                },
                self.name
            ));
        }
        Err(format!(
            "no code object of the module image runs on {}: {}",
            self.name,
            errors.join("; ")
        ))
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if self.ctx.is_null() {
            // `open` failed before retaining the context.
            return;
        }
        // SAFETY: handles this device created; failures at teardown are ignored.
        unsafe {
            if (self.api.cuCtxSetCurrent)(self.ctx) == 0 {
                for m in self.modules.iter_mut().filter_map(Option::take) {
                    (self.api.cuModuleUnload)(m);
                }
            }
            if let Some(release) = self.api.cuDevicePrimaryCtxRelease_v2 {
                release(self.dev);
            }
        }
    }
}

/// How a plain (non-container) image is handed to the driver.
#[derive(Debug, PartialEq)]
enum Plain {
    /// A cubin (ELF) or an NVIDIA fatbinary: loaded as it is.
    Binary,
    /// Anything else is taken for PTX text.
    Ptx,
}

fn classify(image: &[u8]) -> Plain {
    const FATBIN_MAGIC: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();
    if image.starts_with(b"\x7fELF") || image.starts_with(&FATBIN_MAGIC) {
        Plain::Binary
    } else {
        Plain::Ptx
    }
}

/// PTX text with the terminating NUL the driver expects.
fn nul_terminated(text: &[u8]) -> Vec<u8> {
    let mut v = text.to_vec();
    if v.last() != Some(&0) {
        v.push(0);
    }
    v
}

/// Launch dimensions as the drivers take them (`u32`; larger is an error, not a wrap).
pub(crate) fn dims(v: [u64; 3], what: &str) -> Result<[u32; 3], String> {
    let d = |x: u64| {
        u32::try_from(x).map_err(|_| format!("{what} dimension {x} exceeds the driver's limit"))
    };
    Ok([d(v[0])?, d(v[1])?, d(v[2])?])
}

/// The kernel-parameter array the drivers take (null when there are none); they only
/// read it.
pub(crate) fn param_array(params: &[*mut c_void]) -> *mut P {
    if params.is_empty() {
        std::ptr::null_mut()
    } else {
        params.as_ptr() as *mut P
    }
}

/// Destroys an event when dropped, so that a failed launch does not leak it.
struct Event<'a>(&'a Api, P);
impl Drop for Event<'_> {
    fn drop(&mut self) {
        if !self.1.is_null() {
            // SAFETY: an event created by `cuEventCreate`.
            unsafe { (self.0.cuEventDestroy_v2)(self.1) };
        }
    }
}

impl Cuda {
    /// The device's architecture as `--offload-arch` names it (`sm_90`).
    pub fn arch(&self) -> Result<String, String> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: driver calls with valid out-pointers on the device `open` found.
        unsafe {
            self.check(
                (self.api.cuDeviceGetAttribute)(
                    &mut major,
                    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    self.dev,
                ),
                "cuDeviceGetAttribute",
            )?;
            self.check(
                (self.api.cuDeviceGetAttribute)(
                    &mut minor,
                    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                    self.dev,
                ),
                "cuDeviceGetAttribute",
            )?;
        }
        Ok(format!("sm_{major}{minor}"))
    }
}

impl Device for Cuda {
    fn kind(&self) -> &'static str {
        "cuda"
    }

    fn gpu(&self) -> String {
        self.name.clone()
    }

    fn resident_threads(&self) -> Option<u64> {
        (self.sms > 0 && self.max_threads_per_sm > 0)
            .then(|| self.sms as u64 * self.max_threads_per_sm as u64)
    }

    fn load(&mut self, image: &[u8]) -> Result<usize, String> {
        self.current()?;
        let m = match FatBinary::decode(image) {
            Some(fb) => self.load_container(&fb?)?,
            None => match classify(image) {
                Plain::Binary => self.load_binary(image)?,
                Plain::Ptx => self.load_ptx(image)?,
            },
        };
        self.modules.push(Some(m));
        Ok(self.modules.len() - 1)
    }

    fn unload(&mut self, module: usize) {
        if let Some(m) = self.modules.get_mut(module).and_then(Option::take) {
            // SAFETY: a module this device loaded; at process exit the driver may already
            // be shutting down, so failures are ignored.
            unsafe {
                (self.api.cuCtxSetCurrent)(self.ctx);
                (self.api.cuModuleUnload)(m);
            }
        }
    }

    fn global(&mut self, module: usize, name: &str, _bytes: u64) -> Result<*mut c_void, String> {
        self.current()?;
        let m = self
            .modules
            .get(module)
            .copied()
            .flatten()
            .ok_or_else(|| format!("the variable '{name}' of a module that is not loaded"))?;
        let get = self
            .api
            .cuModuleGetGlobal_v2
            .ok_or("the CUDA driver has no cuModuleGetGlobal_v2")?;
        let cname = CString::new(name).map_err(|_| "variable name with a NUL byte".to_string())?;
        let (mut p, mut n) = (0u64, 0usize);
        // SAFETY: a loaded module, a NUL-terminated name and valid out-pointers.
        self.check(
            unsafe { get(&mut p, &mut n, m, cname.as_ptr()) },
            &format!("cuModuleGetGlobal({name})"),
        )?;
        Ok(p as *mut c_void)
    }

    fn function(&mut self, module: usize, name: &str) -> Result<usize, String> {
        self.current()?;
        let m = self.modules.get(module).copied().flatten().ok_or_else(|| {
            format!("function '{name}' requested from a module that is not loaded")
        })?;
        let cname = CString::new(name).map_err(|_| "kernel name with a NUL byte".to_string())?;
        let mut f: P = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        self.check(
            unsafe { (self.api.cuModuleGetFunction)(&mut f, m, cname.as_ptr()) },
            &format!("cuModuleGetFunction({name})"),
        )?;
        let attr = |a: i32| {
            let mut v = 0;
            // SAFETY: a function of a loaded module and a valid out-pointer.
            let r = unsafe { (self.api.cuFuncGetAttribute)(&mut v, a, f) };
            if r == 0 {
                v.max(0) as u32
            } else {
                0
            }
        };
        let registers = attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
        let static_shared = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) as u64;
        self.functions.push(Function {
            handle: f,
            name: name.to_string(),
            registers,
            static_shared,
        });
        Ok(self.functions.len() - 1)
    }

    fn launch(
        &mut self,
        function: usize,
        grid: [u64; 3],
        block: [u64; 3],
        shared_bytes: u32,
        params: &[*mut c_void],
    ) -> Result<Launch, String> {
        let t0 = std::time::Instant::now();
        self.current()?;
        let f = self
            .functions
            .get(function)
            .cloned()
            .ok_or("launch of an unknown function")?;
        let name = &f.name;
        let g = dims(grid, "grid")?;
        let b = dims(block, "block")?;
        let a = &self.api;
        let kernel_params = param_array(params);
        let mut start = Event(a, std::ptr::null_mut());
        let mut stop = Event(a, std::ptr::null_mut());
        let mut ms = 0f32;
        // SAFETY: driver calls on this context's objects with valid out-pointers;
        // `params` (and what it points to) outlives the launch, which completes before
        // this returns.
        unsafe {
            self.check((a.cuEventCreate)(&mut start.1, 0), "cuEventCreate")?;
            self.check((a.cuEventCreate)(&mut stop.1, 0), "cuEventCreate")?;
            self.check(
                (a.cuEventRecord)(start.1, std::ptr::null_mut()),
                "cuEventRecord",
            )?;
            let r = (a.cuLaunchKernel)(
                f.handle,
                g[0],
                g[1],
                g[2],
                b[0],
                b[1],
                b[2],
                shared_bytes,
                std::ptr::null_mut(),
                kernel_params,
                std::ptr::null_mut(),
            );
            self.check(r, &format!("cuLaunchKernel({name})"))?;
            self.check(
                (a.cuEventRecord)(stop.1, std::ptr::null_mut()),
                "cuEventRecord",
            )?;
            self.check((a.cuEventSynchronize)(stop.1), &format!("kernel '{name}'"))?;
            self.check(
                (a.cuEventElapsedTime)(&mut ms, start.1, stop.1),
                "cuEventElapsedTime",
            )?;
        }
        drop((start, stop));
        let wall_time_s = t0.elapsed().as_secs_f64();
        let threads_per_block: u64 = block.iter().product();
        let occupancy = self
            .api
            .cuOccupancyMaxActiveBlocksPerMultiprocessor
            .and_then(|occ| {
                let max_warps = self.max_threads_per_sm as u64 / WARP;
                let mut blocks = 0;
                // SAFETY: a function of a loaded module and a valid out-pointer.
                let r = unsafe {
                    occ(
                        &mut blocks,
                        f.handle,
                        threads_per_block as i32,
                        shared_bytes as usize,
                    )
                };
                (r == 0 && max_warps > 0).then(|| {
                    let warps = blocks.max(0) as u64 * threads_per_block.div_ceil(WARP);
                    (warps as f64 / max_warps as f64).min(1.0)
                })
            });
        Ok(Launch {
            kernel: f.name.clone(),
            device: "cuda".into(),
            gpu: self.name.clone(),
            grid,
            block,
            counters: None,
            shared_bytes_per_block: shared_bytes as u64 + f.static_shared,
            registers_per_thread: f.registers,
            occupancy,
            caches: None,
            estimated_time_s: None,
            bound_by: None,
            measured_time_s: Some(ms as f64 / 1e3),
            wall_time_s,
        })
    }

    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        self.current()?;
        let mut p = 0u64;
        // SAFETY: a valid out-pointer.
        self.check(
            unsafe { (self.api.cuMemAlloc_v2)(&mut p, bytes.max(1) as usize) },
            &format!("cuMemAlloc({bytes} bytes)"),
        )?;
        Ok(p as *mut c_void)
    }

    fn alloc_managed(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        self.current()?;
        let f = self
            .api
            .cuMemAllocManaged
            .ok_or("the CUDA driver has no cuMemAllocManaged")?;
        let mut p = 0u64;
        // SAFETY: a valid out-pointer; 1 is CU_MEM_ATTACH_GLOBAL.
        self.check(
            unsafe { f(&mut p, bytes.max(1) as usize, 1) },
            &format!("cuMemAllocManaged({bytes} bytes)"),
        )?;
        Ok(p as *mut c_void)
    }

    fn free(&mut self, ptr: *mut c_void) -> Result<(), String> {
        if ptr.is_null() {
            return Ok(());
        }
        self.current()?;
        // SAFETY: a pointer from cuMemAlloc or cuMemAllocManaged.
        self.check(unsafe { (self.api.cuMemFree_v2)(ptr as u64) }, "cuMemFree")
    }

    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.current()?;
        // SAFETY: ranges the caller owns; with unified addressing the driver tells host
        // from device pointers, so one call serves every direction.
        self.check(
            unsafe { (self.api.cuMemcpy)(dst as u64, src as u64, bytes as usize) },
            &format!("cuMemcpy({bytes} bytes)"),
        )
    }

    fn memset(
        &mut self,
        dst: *mut c_void,
        value: u32,
        width: u32,
        count: u64,
    ) -> Result<(), String> {
        if count == 0 {
            return Ok(());
        }
        self.current()?;
        // SAFETY: a device range the caller allocated.
        let r = unsafe {
            match width {
                2 => (self.api.cuMemsetD16_v2)(dst as u64, value as u16, count as usize),
                4 => (self.api.cuMemsetD32_v2)(dst as u64, value, count as usize),
                1 => match self.api.cuMemsetD8_v2 {
                    Some(f) => f(dst as u64, value as u8, count as usize),
                    None => return Err("the CUDA driver has no cuMemsetD8_v2".into()),
                },
                w => return Err(format!("memset of {w}-byte elements (expected 1, 2 or 4)")),
            }
        };
        self.check(r, "cuMemset")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_without_a_driver_is_a_clear_error() {
        // SAFETY: probing for the driver library, as `open` does.
        let present = ["libcuda.so.1", "libcuda.so"]
            .iter()
            .any(|n| unsafe { Library::new(n) }.is_ok());
        match Cuda::open() {
            Ok(c) => {
                assert!(present);
                assert_eq!(c.kind(), "cuda");
                assert!(!c.gpu().is_empty());
            }
            Err(e) if !present => {
                assert_eq!(e, "libcuda.so.1 not found (no NVIDIA driver)")
            }
            // A driver without a usable GPU: any clear message will do.
            Err(e) => assert!(!e.is_empty()),
        }
    }

    #[test]
    fn plain_images_are_told_apart() {
        assert_eq!(classify(b"\x7fELF\x02\x01\x01"), Plain::Binary);
        assert_eq!(classify(&[0x50, 0xED, 0x55, 0xBA, 1, 0]), Plain::Binary);
        assert_eq!(classify(b"//\n.version 8.0\n.target sm_90\n"), Plain::Ptx);
        assert_eq!(nul_terminated(b".version 8.0"), b".version 8.0\0");
        assert_eq!(nul_terminated(b".version 8.0\0"), b".version 8.0\0");
        assert!(dims([1, 1 << 32, 1], "grid").is_err());
        assert_eq!(dims([65535, 2, 1], "grid"), Ok([65535, 2, 1]));
    }
}
