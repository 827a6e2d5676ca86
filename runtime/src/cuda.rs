//! The cuda device: the CUDA driver API (`libcuda.so.1`), loaded at run time so that
//! nothing of CUDA is needed to build. It loads the cubin of Tessel's module container
//! (the PTX, JIT-compiled by the driver, when the cubin does not fit the GPU), launches
//! with the driver's own argument packing (the `params` array `gpu-to-llvm` builds), and
//! times every launch with events; occupancy comes from the driver's calculator.

use crate::api::Device;
use crate::bytecode::FatBinary;
use crate::profile::Launch;
use libloading::Library;
use std::ffi::{c_char, c_void, CStr, CString};

type P = *mut c_void;

/// Declares the driver entry points as a struct of function pointers, each returning
/// the API's status code.
macro_rules! api {
    ($lib:literal, $name:ident { $($f:ident ( $($a:ty),* );)* }) => {
        #[allow(non_snake_case)]
        struct $name {
            $($f: unsafe extern "C" fn($($a),*) -> i32,)*
        }
        impl $name {
            /// # Safety
            /// The symbols must have the declared signatures.
            unsafe fn load(lib: &Library) -> Result<Self, String> {
                Ok($name {
                    $($f: *lib
                        .get::<unsafe extern "C" fn($($a),*) -> i32>(concat!(stringify!($f), "\0").as_bytes())
                        .map_err(|e| format!("{} lacks {}: {e}", $lib, stringify!($f)))?,)*
                })
            }
        }
    };
}
pub(crate) use api;

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
    cuGetErrorName(i32, *mut *const c_char);
    cuOccupancyMaxActiveBlocksPerMultiprocessor(*mut i32, P, i32, usize);
});

const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: i32 = 1;
const CU_FUNC_ATTRIBUTE_NUM_REGS: i32 = 4;
const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: i32 = 39;

pub struct Cuda {
    api: Api,
    ctx: P,
    name: String,
    max_threads_per_sm: i32,
    modules: Vec<Option<P>>,
    functions: Vec<(P, String)>,
    // Dropped last: the function pointers above point into it.
    _lib: Library,
}

// SAFETY: the runtime serializes every call through one mutex, and the driver context
// is made current on the calling thread before each use.
unsafe impl Send for Cuda {}

impl Cuda {
    /// Loads the driver and takes device 0's primary context.
    pub fn open() -> Result<Cuda, String> {
        // SAFETY: loading the system's CUDA driver library, whose initializers are sound.
        let lib = unsafe { Library::new("libcuda.so.1").or_else(|_| Library::new("libcuda.so")) }
            .map_err(|_| "libcuda.so.1 not found (no NVIDIA driver)".to_string())?;
        // SAFETY: the declared signatures are the driver API's.
        let api = unsafe { Api::load(&lib)? };
        let mut c = Cuda {
            api,
            ctx: std::ptr::null_mut(),
            name: String::new(),
            max_threads_per_sm: 0,
            modules: Vec::new(),
            functions: Vec::new(),
            _lib: lib,
        };
        // SAFETY: driver calls with valid out-pointers.
        unsafe {
            c.check((c.api.cuInit)(0), "cuInit")?;
            let mut n = 0;
            c.check((c.api.cuDeviceGetCount)(&mut n), "cuDeviceGetCount")?;
            if n < 1 {
                return Err("no CUDA device".into());
            }
            let mut dev = 0;
            c.check((c.api.cuDeviceGet)(&mut dev, 0), "cuDeviceGet")?;
            let mut buf = [0 as c_char; 256];
            c.check(
                (c.api.cuDeviceGetName)(buf.as_mut_ptr(), 255, dev),
                "cuDeviceGetName",
            )?;
            c.name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
            let mut t = 0;
            c.check(
                (c.api.cuDeviceGetAttribute)(
                    &mut t,
                    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                    dev,
                ),
                "cuDeviceGetAttribute",
            )?;
            c.max_threads_per_sm = t;
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

    fn check(&self, r: i32, what: &str) -> Result<(), String> {
        if r == 0 {
            return Ok(());
        }
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a static string pointer.
        let name = unsafe {
            if (self.api.cuGetErrorName)(r, &mut s) == 0 && !s.is_null() {
                CStr::from_ptr(s).to_string_lossy().into_owned()
            } else {
                format!("CUDA error {r}")
            }
        };
        Err(format!("{what} failed: {name}"))
    }

    fn current(&self) -> Result<(), String> {
        // SAFETY: a context retained in `open`.
        self.check(
            unsafe { (self.api.cuCtxSetCurrent)(self.ctx) },
            "cuCtxSetCurrent",
        )
    }

    fn load_image(&self, image: &[u8]) -> Result<P, String> {
        let mut m: P = std::ptr::null_mut();
        // SAFETY: `image` outlives the call; the driver copies what it keeps.
        let r = unsafe { (self.api.cuModuleLoadData)(&mut m, image.as_ptr() as *const c_void) };
        self.check(r, "cuModuleLoadData").map(|_| m)
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

impl Device for Cuda {
    fn kind(&self) -> &'static str {
        "cuda"
    }
    fn gpu(&self) -> String {
        self.name.clone()
    }

    fn load(&mut self, image: &[u8]) -> Result<usize, String> {
        self.current()?;
        let m = match FatBinary::decode(image) {
            Some(fb) => {
                let fb = fb?;
                let cubin = fb.cubin.as_deref().map(|c| self.load_image(c));
                match (cubin, fb.ptx.as_deref()) {
                    (Some(Ok(m)), _) => m,
                    (_, Some(ptx)) => self.load_image(&nul_terminated(ptx))?,
                    (Some(Err(e)), None) => return Err(e),
                    (None, None) => {
                        return Err("the module image holds no cubin or PTX (built for AMD?)".into())
                    }
                }
            }
            None if image.starts_with(b"\x7fELF") => self.load_image(image)?,
            None => self.load_image(&nul_terminated(image))?,
        };
        self.modules.push(Some(m));
        Ok(self.modules.len() - 1)
    }

    fn unload(&mut self, module: usize) {
        if let Some(Some(m)) = self.modules.get_mut(module).map(|m| m.take()) {
            // SAFETY: a module this device loaded.
            unsafe { (self.api.cuModuleUnload)(m) };
        }
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
        self.functions.push((f, name.to_string()));
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
        self.current()?;
        let t0 = std::time::Instant::now();
        let (f, name) = self
            .functions
            .get(function)
            .cloned()
            .ok_or("launch of an unknown function")?;
        let a = &self.api;
        let mut ps: Vec<P> = params.to_vec();
        let (mut start, mut stop): (P, P) = (std::ptr::null_mut(), std::ptr::null_mut());
        let mut ms = 0f32;
        let (mut regs, mut static_smem, mut per_sm) = (0, 0, 0);
        let tpb: u64 = block.iter().product();
        // SAFETY: driver calls on this context's objects; `ps` outlives the launch, which
        // is synchronized before returning.
        unsafe {
            self.check((a.cuEventCreate)(&mut start, 0), "cuEventCreate")?;
            self.check((a.cuEventCreate)(&mut stop, 0), "cuEventCreate")?;
            self.check(
                (a.cuEventRecord)(start, std::ptr::null_mut()),
                "cuEventRecord",
            )?;
            let r = (a.cuLaunchKernel)(
                f,
                grid[0] as u32,
                grid[1] as u32,
                grid[2] as u32,
                block[0] as u32,
                block[1] as u32,
                block[2] as u32,
                shared_bytes,
                std::ptr::null_mut(),
                if ps.is_empty() {
                    std::ptr::null_mut()
                } else {
                    ps.as_mut_ptr()
                },
                std::ptr::null_mut(),
            );
            self.check(r, &format!("cuLaunchKernel({name})"))?;
            self.check(
                (a.cuEventRecord)(stop, std::ptr::null_mut()),
                "cuEventRecord",
            )?;
            self.check((a.cuEventSynchronize)(stop), &format!("kernel '{name}'"))?;
            self.check(
                (a.cuEventElapsedTime)(&mut ms, start, stop),
                "cuEventElapsedTime",
            )?;
            (a.cuEventDestroy_v2)(start);
            (a.cuEventDestroy_v2)(stop);
            (a.cuFuncGetAttribute)(&mut regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
            (a.cuFuncGetAttribute)(&mut static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
            (a.cuOccupancyMaxActiveBlocksPerMultiprocessor)(
                &mut per_sm,
                f,
                tpb as i32,
                shared_bytes as usize,
            );
        }
        let occupancy = (self.max_threads_per_sm > 0).then(|| {
            let warps = tpb.div_ceil(32) as f64 * per_sm.max(0) as f64;
            (warps / (self.max_threads_per_sm as f64 / 32.0)).min(1.0)
        });
        Ok(Launch {
            kernel: name,
            device: "cuda".into(),
            gpu: self.name.clone(),
            grid,
            block,
            counters: None,
            shared_bytes_per_block: shared_bytes as u64 + static_smem.max(0) as u64,
            registers_per_thread: regs.max(0) as u32,
            occupancy,
            estimated_time_s: None,
            measured_time_s: Some(ms as f64 / 1e3),
            wall_time_s: t0.elapsed().as_secs_f64(),
        })
    }

    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        self.current()?;
        let mut p = 0u64;
        // SAFETY: a valid out-pointer.
        self.check(
            unsafe { (self.api.cuMemAlloc_v2)(&mut p, bytes.max(1) as usize) },
            &format!("cuMemAlloc({bytes})"),
        )?;
        Ok(p as *mut c_void)
    }

    fn free(&mut self, ptr: *mut c_void) -> Result<(), String> {
        if ptr.is_null() {
            return Ok(());
        }
        self.current()?;
        // SAFETY: a pointer from cuMemAlloc.
        self.check(unsafe { (self.api.cuMemFree_v2)(ptr as u64) }, "cuMemFree")
    }

    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String> {
        self.current()?;
        // SAFETY: unified addressing tells host from device pointers.
        self.check(
            unsafe { (self.api.cuMemcpy)(dst as u64, src as u64, bytes as usize) },
            "cuMemcpy",
        )
    }

    fn memset(
        &mut self,
        dst: *mut c_void,
        value: u32,
        width: u32,
        count: u64,
    ) -> Result<(), String> {
        self.current()?;
        // SAFETY: a device range the caller allocated.
        let r = unsafe {
            if width == 2 {
                (self.api.cuMemsetD16_v2)(dst as u64, value as u16, count as usize)
            } else {
                (self.api.cuMemsetD32_v2)(dst as u64, value, count as usize)
            }
        };
        self.check(r, "cuMemset")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn open_without_a_driver_is_a_clear_error() {
        // On machines without an NVIDIA driver (CI) this must fail cleanly; with one, it
        // must name the device.
        match super::Cuda::open() {
            Ok(c) => assert!(!c.name.is_empty()),
            Err(e) => assert!(
                e.contains("libcuda") || e.contains("CUDA") || e.contains("cu"),
                "{e}"
            ),
        }
    }
}
