//! The hip device: the HIP runtime of ROCm (`libamdhip64.so`, else `.so.6`, `.so.5`),
//! loaded at run time with `libloading` so that nothing of ROCm is needed to build.
//!
//! [`Hip::open`] initializes the runtime and selects device 0. [`Device::load`] takes the
//! `hsaco` entry of Tessel's module container ([`FatBinary`]); an image that is not a
//! container is handed to `hipModuleLoadData` as it is (a code object or offload bundle).
//! Launches mirror the cuda device: the `params` array `gpu-to-llvm` builds, run to
//! completion, timed with events, registers and static shared memory from the function's
//! attributes; no counters and no occupancy. It cannot be exercised on machines without
//! ROCm; there [`Hip::open`] reports that the library is absent.

use crate::api::Device;
use crate::bytecode::{CodeKind, FatBinary};
use crate::cuda::{api, dims, open_library, param_array};
use crate::profile::Launch;
use libloading::Library;
use std::ffi::{c_char, c_void, CStr, CString};

type P = *mut c_void;

api!("libamdhip64.so", Api {
    hipInit(u32);
    hipGetDeviceCount(*mut i32);
    hipSetDevice(i32);
    hipDeviceGet(*mut i32, i32);
    hipDeviceGetName(*mut c_char, i32, i32);
    hipModuleLoadData(*mut P, *const c_void);
    hipModuleUnload(P);
    hipModuleGetFunction(*mut P, P, *const c_char);
    hipModuleLaunchKernel(P, u32, u32, u32, u32, u32, u32, u32, P, *mut P, *mut P);
    hipMalloc(*mut P, usize);
    hipFree(P);
    hipMemcpy(P, *const c_void, usize, i32);
    hipMemsetD32(P, i32, usize);
    hipMemsetD16(P, u16, usize);
    hipMemsetD8(P, u8, usize);
    hipEventCreate(*mut P);
    hipEventRecord(P, P);
    hipEventSynchronize(P);
    hipEventElapsedTime(*mut f32, P, P);
    hipEventDestroy(P);
    hipDeviceSynchronize();
} optional {
    hipFuncGetAttribute(*mut i32, i32, P);
    hipMallocManaged(*mut P, usize, u32);
});

/// `hipMemcpyDefault`: the runtime tells host from device pointers.
const HIP_MEMCPY_DEFAULT: i32 = 4;
const HIP_ERROR_NO_DEVICE: i32 = 100;
const HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: i32 = 1;
const HIP_FUNC_ATTRIBUTE_NUM_REGS: i32 = 4;

type ErrorText = unsafe extern "C" fn(i32) -> *const c_char;

/// A kernel looked up in a loaded module.
#[derive(Clone)]
struct Function {
    handle: P,
    name: String,
    registers: u32,
    static_shared: u64,
}

/// The HIP device: the runtime library, device 0, and the modules and functions loaded
/// so far (handed out as indices).
pub struct Hip {
    api: Api,
    error_name: Option<ErrorText>,
    error_string: Option<ErrorText>,
    name: String,
    modules: Vec<Option<P>>,
    functions: Vec<Function>,
    // Declared last so that it is dropped last: the function pointers point into it.
    _lib: Library,
}

// SAFETY: the raw pointers are HIP handles (modules, functions), valid on any thread of
// the process; device 0 is every thread's default device. The runtime serializes every
// call through one mutex.
unsafe impl Send for Hip {}

impl Hip {
    /// Loads the HIP runtime, initializes it, and selects device 0.
    pub fn open() -> Result<Hip, String> {
        let lib = open_library(
            &["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"],
            "libamdhip64.so not found (no ROCm runtime)",
        )?;
        // SAFETY: the declared signatures are HIP's; `lib` is kept in `Hip`.
        let api = unsafe { Api::load(&lib)? };
        let text = |n: &[u8]| {
            // SAFETY: `const char *f(hipError_t)`, kept alive with `lib`.
            unsafe { lib.get::<ErrorText>(n).ok().map(|s| *s) }
        };
        let error_name = text(b"hipGetErrorName\0");
        let error_string = text(b"hipGetErrorString\0");
        let mut h = Hip {
            api,
            error_name,
            error_string,
            name: String::new(),
            modules: Vec::new(),
            functions: Vec::new(),
            _lib: lib,
        };
        // SAFETY: runtime calls with valid out-pointers and buffer sizes.
        unsafe {
            let r = (h.api.hipInit)(0);
            if r == HIP_ERROR_NO_DEVICE {
                return Err("no HIP device (hipInit: hipErrorNoDevice)".into());
            }
            h.check(r, "hipInit")?;
            let mut n = 0;
            let r = (h.api.hipGetDeviceCount)(&mut n);
            if r == HIP_ERROR_NO_DEVICE || (r == 0 && n < 1) {
                return Err("no HIP device".into());
            }
            h.check(r, "hipGetDeviceCount")?;
            h.check((h.api.hipSetDevice)(0), "hipSetDevice")?;
            let mut dev = 0;
            h.check((h.api.hipDeviceGet)(&mut dev, 0), "hipDeviceGet")?;
            let mut buf = [0 as c_char; 256];
            h.check(
                (h.api.hipDeviceGetName)(buf.as_mut_ptr(), buf.len() as i32 - 1, dev),
                "hipDeviceGetName",
            )?;
            h.name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        }
        Ok(h)
    }

    /// `hipErrorName (description)` for a status code.
    fn error(&self, r: i32) -> String {
        let text = |f: Option<ErrorText>| {
            // SAFETY: HIP returns a static string (or null).
            let s = unsafe { f?(r) };
            // SAFETY: a NUL-terminated static string.
            (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
        };
        match (text(self.error_name), text(self.error_string)) {
            (Some(n), Some(s)) => format!("{n} ({s})"),
            (Some(n), None) => n,
            (None, Some(s)) => format!("HIP error {r} ({s})"),
            (None, None) => format!("HIP error {r}"),
        }
    }

    fn check(&self, r: i32, what: &str) -> Result<(), String> {
        if r == 0 {
            Ok(())
        } else {
            Err(format!("{what} failed: {}", self.error(r)))
        }
    }
}

impl Drop for Hip {
    fn drop(&mut self) {
        for m in self.modules.iter_mut().filter_map(Option::take) {
            // SAFETY: a module this device loaded; failures at teardown are ignored.
            unsafe { (self.api.hipModuleUnload)(m) };
        }
    }
}

/// Destroys an event when dropped, so that a failed launch does not leak it.
struct Event<'a>(&'a Api, P);
impl Drop for Event<'_> {
    fn drop(&mut self) {
        if !self.1.is_null() {
            // SAFETY: an event created by `hipEventCreate`.
            unsafe { (self.0.hipEventDestroy)(self.1) };
        }
    }
}

// The `Device` trait takes device and host addresses as raw pointers in safe methods;
// this code never dereferences them but hands them to HIP, and the `mgpu*` C ABI is the
// boundary where callers vouch for them (as they do on the cuda device, whose driver
// takes device pointers as integers).
#[allow(clippy::not_unsafe_ptr_arg_deref)]
impl Device for Hip {
    fn kind(&self) -> &'static str {
        "hip"
    }

    fn gpu(&self) -> String {
        self.name.clone()
    }

    fn load(&mut self, image: &[u8]) -> Result<usize, String> {
        let objects: Vec<(String, Vec<u8>)> = match FatBinary::decode(image) {
            Some(fb) => {
                let fb = fb?;
                let v: Vec<_> = fb
                    .objects(CodeKind::Hsaco)
                    .into_iter()
                    .map(|c| (c.arch.clone(), c.bytes.clone()))
                    .collect();
                if v.is_empty() {
                    return Err(
                        "the module image holds no HSACO (built for NVIDIA or for sim only? \
                         build with --offload-arch=gfxNNN)"
                            .into(),
                    );
                }
                v
            }
            None => vec![(String::new(), image.to_vec())],
        };
        // The first code object the runtime accepts (it rejects another processor's).
        let mut errors = Vec::new();
        let mut loaded = None;
        for (arch, code) in &objects {
            let mut m: P = std::ptr::null_mut();
            // SAFETY: `code` outlives the call; the runtime copies what it keeps.
            let r = self.check(
                unsafe { (self.api.hipModuleLoadData)(&mut m, code.as_ptr() as *const c_void) },
                "hipModuleLoadData",
            );
            match r {
                Ok(()) => {
                    loaded = Some(m);
                    break;
                }
                Err(e) if arch.is_empty() => errors.push(e),
                Err(e) => errors.push(format!("HSACO for {arch}: {e}")),
            }
        }
        let m = loaded.ok_or_else(|| errors.join("; "))?;
        self.modules.push(Some(m));
        Ok(self.modules.len() - 1)
    }

    fn unload(&mut self, module: usize) {
        if let Some(m) = self.modules.get_mut(module).and_then(Option::take) {
            // SAFETY: a module this device loaded; at process exit the runtime may already
            // be shutting down, so failures are ignored.
            unsafe { (self.api.hipModuleUnload)(m) };
        }
    }

    fn function(&mut self, module: usize, name: &str) -> Result<usize, String> {
        let m = self.modules.get(module).copied().flatten().ok_or_else(|| {
            format!("function '{name}' requested from a module that is not loaded")
        })?;
        let cname = CString::new(name).map_err(|_| "kernel name with a NUL byte".to_string())?;
        let mut f: P = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        self.check(
            unsafe { (self.api.hipModuleGetFunction)(&mut f, m, cname.as_ptr()) },
            &format!("hipModuleGetFunction({name})"),
        )?;
        let attr = |a: i32| {
            let get = self.api.hipFuncGetAttribute?;
            let mut v = 0;
            // SAFETY: a function of a loaded module and a valid out-pointer.
            (unsafe { get(&mut v, a, f) } == 0).then_some(v.max(0) as u32)
        };
        let registers = attr(HIP_FUNC_ATTRIBUTE_NUM_REGS).unwrap_or(0);
        let static_shared = attr(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).unwrap_or(0) as u64;
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
        // SAFETY: runtime calls on this device's objects with valid out-pointers; `params`
        // (and what it points to) outlives the launch, which completes before this returns.
        unsafe {
            self.check((a.hipEventCreate)(&mut start.1), "hipEventCreate")?;
            self.check((a.hipEventCreate)(&mut stop.1), "hipEventCreate")?;
            self.check(
                (a.hipEventRecord)(start.1, std::ptr::null_mut()),
                "hipEventRecord",
            )?;
            let r = (a.hipModuleLaunchKernel)(
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
            self.check(r, &format!("hipModuleLaunchKernel({name})"))?;
            self.check(
                (a.hipEventRecord)(stop.1, std::ptr::null_mut()),
                "hipEventRecord",
            )?;
            self.check((a.hipEventSynchronize)(stop.1), &format!("kernel '{name}'"))?;
            // Surfaces a fault of the kernel that the event may not report.
            self.check((a.hipDeviceSynchronize)(), &format!("kernel '{name}'"))?;
            self.check(
                (a.hipEventElapsedTime)(&mut ms, start.1, stop.1),
                "hipEventElapsedTime",
            )?;
        }
        drop((start, stop));
        Ok(Launch {
            kernel: f.name.clone(),
            device: "hip".into(),
            gpu: self.name.clone(),
            grid,
            block,
            counters: None,
            shared_bytes_per_block: shared_bytes as u64 + f.static_shared,
            registers_per_thread: f.registers,
            occupancy: None,
            caches: None,
            estimated_time_s: None,
            bound_by: None,
            measured_time_s: Some(ms as f64 / 1e3),
            wall_time_s: t0.elapsed().as_secs_f64(),
        })
    }

    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        let mut p: P = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        self.check(
            unsafe { (self.api.hipMalloc)(&mut p, bytes.max(1) as usize) },
            &format!("hipMalloc({bytes} bytes)"),
        )?;
        Ok(p)
    }

    fn alloc_managed(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        let f = self
            .api
            .hipMallocManaged
            .ok_or("the HIP runtime has no hipMallocManaged")?;
        let mut p: P = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; 1 is hipMemAttachGlobal.
        self.check(
            unsafe { f(&mut p, bytes.max(1) as usize, 1) },
            &format!("hipMallocManaged({bytes} bytes)"),
        )?;
        Ok(p)
    }

    fn free(&mut self, ptr: *mut c_void) -> Result<(), String> {
        if ptr.is_null() {
            return Ok(());
        }
        // SAFETY: a pointer from hipMalloc.
        self.check(unsafe { (self.api.hipFree)(ptr) }, "hipFree")
    }

    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: ranges the caller owns; the runtime tells host from device pointers.
        self.check(
            unsafe { (self.api.hipMemcpy)(dst, src, bytes as usize, HIP_MEMCPY_DEFAULT) },
            &format!("hipMemcpy({bytes} bytes)"),
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
        // SAFETY: a device range the caller allocated.
        let r = unsafe {
            match width {
                2 => (self.api.hipMemsetD16)(dst, value as u16, count as usize),
                4 => (self.api.hipMemsetD32)(dst, value as i32, count as usize),
                1 => (self.api.hipMemsetD8)(dst, value as u8, count as usize),
                w => return Err(format!("memset of {w}-byte elements (expected 1, 2 or 4)")),
            }
        };
        self.check(r, "hipMemset")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_without_rocm_is_a_clear_error() {
        // SAFETY: probing for the runtime library, as `open` does.
        let present = ["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"]
            .iter()
            .any(|n| unsafe { Library::new(n) }.is_ok());
        match Hip::open() {
            Ok(h) => {
                assert!(present);
                assert_eq!(h.kind(), "hip");
                assert!(!h.gpu().is_empty());
            }
            Err(e) if !present => assert_eq!(e, "libamdhip64.so not found (no ROCm runtime)"),
            // A runtime without a usable GPU: any clear message will do.
            Err(e) => assert!(!e.is_empty()),
        }
    }

    #[test]
    fn launch_dimensions_fit_the_runtime() {
        assert!(dims([u32::MAX as u64 + 1, 1, 1], "block").is_err());
        assert_eq!(dims([1024, 1, 1], "block"), Ok([1024, 1, 1]));
    }
}
