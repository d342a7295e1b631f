//! Scratch: NVIDIA OpenCL zeroing speed, fill patterns against a kernel.
#![allow(clippy::undocumented_unsafe_blocks)]
use ocl::core::ffi::*;
use std::ffi::CString;
use std::ptr;
use std::time::Instant;

fn main() {
    unsafe {
        let mut n = 0;
        clGetPlatformIDs(0, ptr::null_mut(), &mut n);
        let mut plats = vec![ptr::null_mut(); n as usize];
        clGetPlatformIDs(n, plats.as_mut_ptr(), ptr::null_mut());
        for p in plats {
            let mut name = vec![0u8; 256];
            let mut len = 0;
            clGetPlatformInfo(p, 0x0902, 256, name.as_mut_ptr().cast(), &mut len);
            let name = String::from_utf8_lossy(&name[..len.saturating_sub(1)]).to_string();
            let mut dev = ptr::null_mut();
            if clGetDeviceIDs(p, 0xFFFF_FFFF, 1, &mut dev, ptr::null_mut()) != 0 {
                continue;
            }
            let mut code = 0;
            let ctx = clCreateContext(ptr::null(), 1, &dev, None, ptr::null_mut(), &mut code);
            let q = clCreateCommandQueue(ctx, dev, 0, &mut code);
            let bytes = 256usize << 20;
            let buf = clCreateBuffer(ctx, 1, bytes, ptr::null_mut(), &mut code);
            let src = CString::new("__kernel void zero(__global uint4* p, ulong n) { for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) p[i] = (uint4)(0); }").unwrap();
            let sp = src.as_ptr();
            let prog = clCreateProgramWithSource(ctx, 1, &sp, ptr::null(), &mut code);
            let b = clBuildProgram(prog, 1, &dev, ptr::null(), None, ptr::null_mut());
            let kname = CString::new("zero").unwrap();
            let kernel = clCreateKernel(prog, kname.as_ptr(), &mut code);
            let n4: u64 = (bytes / 16) as u64;
            clSetKernelArg(kernel, 0, 8, (&buf as *const cl_mem).cast());
            clSetKernelArg(kernel, 1, 8, (&n4 as *const u64).cast());
            println!("{name}: build {b}, kernel {code}");
            let zero = [0u8; 128];
            let mut variants: Vec<(String, Box<dyn Fn()>)> = Vec::new();
            for pattern in [4usize, 16, 128] {
                variants.push((format!("fill pattern {pattern}"), Box::new(move || {
                    clEnqueueFillBuffer(q, buf, zero.as_ptr().cast(), pattern, 0, bytes, 0, ptr::null(), ptr::null_mut());
                    clFinish(q);
                })));
            }
            for groups in [1024usize, 4096, 16384] {
                variants.push((format!("kernel {groups}x256"), Box::new(move || {
                    let global = groups * 256;
                    let local = 256usize;
                    clEnqueueNDRangeKernel(q, kernel, 1, ptr::null(), &global, &local, 0, ptr::null(), ptr::null_mut());
                    clFinish(q);
                })));
            }
            for (label, f) in &variants {
                f();
                let mut times: Vec<f64> = (0..20)
                    .map(|_| {
                        let t = Instant::now();
                        f();
                        t.elapsed().as_secs_f64() * 1e6
                    })
                    .collect();
                times.sort_by(|a, b| a.partial_cmp(b).unwrap());
                let gbps = bytes as f64 / times[10] / 1e3;
                println!("{name}: 256 MiB {label:18} median {:8.1} µs  min {:8.1}  {gbps:6.0} GB/s", times[10], times[0]);
            }
        }
    }
}
