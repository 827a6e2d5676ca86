//! The hip device: the HIP runtime (`libamdhip64.so`), loaded at run time. It loads the
//! HSACO of Tessel's module container and mirrors the cuda device (event timing, no
//! counters). It cannot be exercised on machines without ROCm; there it reports that the
//! library is absent.

use crate::api::Device;
use crate::bytecode::FatBinary;
use crate::cuda::api;
use crate::profile::Launch;
use libloading::Library;
use std::ffi::{c_char, c_void, CStr, CString};

type P = *mut c_void;

api!("libamdhip64.so", Api {
    hipInit(u32);
    hipGetDeviceCount(*mut i32);
    hipSetDevice(i32);
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
    hipEventCreate(*mut P);
    hipEventRecord(P, P);
    hipEventSynchronize(P);
    hipEventElapsedTime(*mut f32, P, P);
    hipEventDestroy(P);
});

/// `hipMemcpyDefault`: the runtime tells host from device pointers.
const HIP_MEMCPY_DEFAULT: i32 = 4;

pub struct Hip {
    api: Api,
    error_string: Option<unsafe extern "C" fn(i32) -> *const c_char>,
    name: String,
    modules: Vec<Option<P>>,
    functions: Vec<(P, String)>,
    _lib: Library,
}

// SAFETY: the runtime serializes every call through one mutex.
unsafe impl Send for Hip {}

impl Hip {
    pub fn open() -> Result<Hip, String> {
        // SAFETY: loading the system's HIP runtime library.
        let lib = ["libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"]
            .into_iter()
            .find_map(|n| unsafe { Library::new(n).ok() })
            .ok_or_else(|| "libamdhip64.so not found (no ROCm runtime)".to_string())?;
        // SAFETY: the declared signatures are HIP's.
        let api = unsafe { Api::load(&lib)? };
        // SAFETY: as above.
        let error_string = unsafe {
            lib.get::<unsafe extern "C" fn(i32) -> *const c_char>(b"hipGetErrorString\0")
                .ok()
                .map(|s| *s)
        };
        let mut h = Hip {
            api,
            error_string,
            name: String::new(),
            modules: Vec::new(),
            functions: Vec::new(),
            _lib: lib,
        };
        // SAFETY: runtime calls with valid out-pointers.
        unsafe {
            h.check((h.api.hipInit)(0), "hipInit")?;
            let mut n = 0;
            h.check((h.api.hipGetDeviceCount)(&mut n), "hipGetDeviceCount")?;
            if n < 1 {
                return Err("no HIP device".into());
            }
            h.check((h.api.hipSetDevice)(0), "hipSetDevice")?;
            let mut buf = [0 as c_char; 256];
            h.check(
                (h.api.hipDeviceGetName)(buf.as_mut_ptr(), 255, 0),
                "hipDeviceGetName",
            )?;
            h.name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        }
        Ok(h)
    }

    fn check(&self, r: i32, what: &str) -> Result<(), String> {
        if r == 0 {
            return Ok(());
        }
        let msg = self
            .error_string
            // SAFETY: hipGetErrorString returns a static string.
            .map(|f| unsafe { CStr::from_ptr(f(r)).to_string_lossy().into_owned() })
            .unwrap_or_else(|| format!("HIP error {r}"));
        Err(format!("{what} failed: {msg}"))
    }
}

impl Device for Hip {
    fn kind(&self) -> &'static str {
        "hip"
    }
    fn gpu(&self) -> String {
        self.name.clone()
    }

    fn load(&mut self, image: &[u8]) -> Result<usize, String> {
        let owned;
        let code: &[u8] = match FatBinary::decode(image) {
            Some(fb) => {
                owned = fb?.hsaco.ok_or(
                    "the module image holds no HSACO (built for NVIDIA? use --offload-arch=gfxNNN)",
                )?;
                &owned
            }
            None => image,
        };
        let mut m: P = std::ptr::null_mut();
        // SAFETY: `code` outlives the call.
        self.check(
            unsafe { (self.api.hipModuleLoadData)(&mut m, code.as_ptr() as *const c_void) },
            "hipModuleLoadData",
        )?;
        self.modules.push(Some(m));
        Ok(self.modules.len() - 1)
    }

    fn unload(&mut self, module: usize) {
        if let Some(Some(m)) = self.modules.get_mut(module).map(|m| m.take()) {
            // SAFETY: a module this device loaded.
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
        // SAFETY: runtime calls on this device's objects; `ps` outlives the synchronized launch.
        unsafe {
            self.check((a.hipEventCreate)(&mut start), "hipEventCreate")?;
            self.check((a.hipEventCreate)(&mut stop), "hipEventCreate")?;
            self.check(
                (a.hipEventRecord)(start, std::ptr::null_mut()),
                "hipEventRecord",
            )?;
            let r = (a.hipModuleLaunchKernel)(
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
            self.check(r, &format!("hipModuleLaunchKernel({name})"))?;
            self.check(
                (a.hipEventRecord)(stop, std::ptr::null_mut()),
                "hipEventRecord",
            )?;
            self.check((a.hipEventSynchronize)(stop), &format!("kernel '{name}'"))?;
            self.check(
                (a.hipEventElapsedTime)(&mut ms, start, stop),
                "hipEventElapsedTime",
            )?;
            (a.hipEventDestroy)(start);
            (a.hipEventDestroy)(stop);
        }
        Ok(Launch {
            kernel: name,
            device: "hip".into(),
            gpu: self.name.clone(),
            grid,
            block,
            counters: None,
            shared_bytes_per_block: shared_bytes as u64,
            registers_per_thread: 0,
            occupancy: None,
            estimated_time_s: None,
            measured_time_s: Some(ms as f64 / 1e3),
            wall_time_s: t0.elapsed().as_secs_f64(),
        })
    }

    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        let mut p: P = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        self.check(
            unsafe { (self.api.hipMalloc)(&mut p, bytes.max(1) as usize) },
            &format!("hipMalloc({bytes})"),
        )?;
        Ok(p)
    }

    fn free(&mut self, ptr: *mut c_void) -> Result<(), String> {
        // SAFETY: a pointer from hipMalloc (or null).
        self.check(unsafe { (self.api.hipFree)(ptr) }, "hipFree")
    }

    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String> {
        // SAFETY: the runtime tells host from device pointers.
        self.check(
            unsafe { (self.api.hipMemcpy)(dst, src, bytes as usize, HIP_MEMCPY_DEFAULT) },
            "hipMemcpy",
        )
    }

    fn memset(
        &mut self,
        dst: *mut c_void,
        value: u32,
        width: u32,
        count: u64,
    ) -> Result<(), String> {
        // SAFETY: a device range the caller allocated.
        let r = unsafe {
            if width == 2 {
                (self.api.hipMemsetD16)(dst, value as u16, count as usize)
            } else {
                (self.api.hipMemsetD32)(dst, value as i32, count as usize)
            }
        };
        self.check(r, "hipMemset")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn open_without_rocm_is_a_clear_error() {
        match super::Hip::open() {
            Ok(h) => assert!(!h.name.is_empty()),
            Err(e) => assert!(e.contains("libamdhip64") || e.contains("hip"), "{e}"),
        }
    }
}
