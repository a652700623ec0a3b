//! The system calls the VFIO backend makes, behind a trait: [`LibcSys`]
//! makes them, a test's mock answers them.
//!
//! Every call returns the OS error number on failure. Pointers returned by
//! [`Sys::mmap`] are only created here; reading or writing through them is
//! the backend's business (`VfioHw`), which is where those `unsafe` blocks
//! live.

use std::time::Duration;

/// A file descriptor.
pub type Fd = i32;

/// The argument of an ioctl.
#[derive(Debug)]
pub enum IoctlArg<'a> {
    /// No argument (`_IO` requests that take none, such as
    /// `VFIO_GET_API_VERSION`).
    None,
    /// An integer argument passed by value (`VFIO_CHECK_EXTENSION`,
    /// `VFIO_SET_IOMMU`).
    Value(u64),
    /// A structure or string the kernel reads and may fill, passed by pointer.
    Buf(&'a mut [u8]),
}

/// The system calls of the VFIO backend.
pub trait Sys {
    /// `open(path, O_RDWR | O_CLOEXEC)`.
    fn open(&mut self, path: &str) -> Result<Fd, i32>;
    /// `close(fd)`.
    fn close(&mut self, fd: Fd);
    /// `ioctl(fd, request, arg)`; the call's non-negative return value.
    fn ioctl(&mut self, fd: Fd, request: u64, arg: IoctlArg<'_>) -> Result<i32, i32>;
    /// `mmap` of `len` bytes read-write: `MAP_SHARED` of `fd` at `offset`,
    /// or with no fd `MAP_PRIVATE | MAP_ANONYMOUS` zeroed memory.
    fn mmap(&mut self, fd: Option<Fd>, offset: u64, len: usize) -> Result<*mut u8, i32>;
    /// `munmap(ptr, len)` of a mapping `mmap` returned.
    fn munmap(&mut self, ptr: *mut u8, len: usize);
    /// `pread(fd, buf, offset)`, all of `buf`.
    fn pread(&mut self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<(), i32>;
    /// `pwrite(fd, data, offset)`, all of `data`.
    fn pwrite(&mut self, fd: Fd, data: &[u8], offset: u64) -> Result<(), i32>;
    /// `eventfd(0, EFD_CLOEXEC)`.
    fn eventfd(&mut self) -> Result<Fd, i32>;
    /// `poll` for `fd` readable, at most `timeout`: whether it is.
    fn wait_readable(&mut self, fd: Fd, timeout: Duration) -> Result<bool, i32>;
    /// `read` of an eventfd's 8-byte counter.
    fn read_u64(&mut self, fd: Fd) -> Result<u64, i32>;
    /// `readlink(path)`.
    fn read_link(&mut self, path: &str) -> Result<String, i32>;
    /// The names in a directory (`readdir`), without `.` and `..`.
    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, i32>;
}

/// The system calls, made through libc.
///
/// Trust assumption, as in rust-vmm's vfio-ioctls: the kernel does what
/// `linux/vfio.h` says with the buffers it is given, and reads or writes no
/// more than the `argsz` each one starts with (each buffer here is that
/// long).
#[derive(Debug, Default, Clone, Copy)]
pub struct LibcSys;

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn cstring(path: &str) -> Result<std::ffi::CString, i32> {
    std::ffi::CString::new(path).map_err(|_| libc::EINVAL)
}

impl Sys for LibcSys {
    fn open(&mut self, path: &str) -> Result<Fd, i32> {
        let c = cstring(path)?;
        // SAFETY: `c` is a NUL-terminated string that outlives the call;
        // open reads it and returns a new descriptor or -1.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            Err(errno())
        } else {
            Ok(fd)
        }
    }

    fn close(&mut self, fd: Fd) {
        // SAFETY: closing a descriptor this backend opened and owns; no Rust
        // object wraps it.
        unsafe { libc::close(fd) };
    }

    fn ioctl(&mut self, fd: Fd, request: u64, arg: IoctlArg<'_>) -> Result<i32, i32> {
        let r = match arg {
            // SAFETY: a request that takes no argument; the kernel reads none.
            IoctlArg::None => unsafe { libc::ioctl(fd, request as _) },
            // SAFETY: a request whose argument is an integer by value.
            IoctlArg::Value(v) => unsafe { libc::ioctl(fd, request as _, v as libc::c_ulong) },
            // SAFETY: `buf` is a live, exclusively borrowed buffer as long as
            // the structure the request reads and fills (its argsz), so the
            // kernel's accesses stay inside it for the duration of the call.
            IoctlArg::Buf(buf) => unsafe { libc::ioctl(fd, request as _, buf.as_mut_ptr()) },
        };
        if r < 0 {
            Err(errno())
        } else {
            Ok(r)
        }
    }

    fn mmap(&mut self, fd: Option<Fd>, offset: u64, len: usize) -> Result<*mut u8, i32> {
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let (flags, fd) = match fd {
            Some(fd) => (libc::MAP_SHARED, fd),
            None => (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1),
        };
        // SAFETY: a new mapping at an address the kernel picks (null hint),
        // so no existing memory is replaced; the result is checked.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd, offset as libc::off_t) };
        if p == libc::MAP_FAILED {
            Err(errno())
        } else {
            Ok(p.cast())
        }
    }

    fn munmap(&mut self, ptr: *mut u8, len: usize) {
        // SAFETY: `ptr`/`len` are a mapping `mmap` returned and the backend
        // no longer uses (it drops its record of it first).
        unsafe { libc::munmap(ptr.cast(), len) };
    }

    fn pread(&mut self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<(), i32> {
        // SAFETY: `buf` is writable for `buf.len()` bytes during the call.
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), offset as libc::off_t) };
        if n == buf.len() as isize {
            Ok(())
        } else if n < 0 {
            Err(errno())
        } else {
            Err(libc::EIO)
        }
    }

    fn pwrite(&mut self, fd: Fd, data: &[u8], offset: u64) -> Result<(), i32> {
        // SAFETY: `data` is readable for `data.len()` bytes during the call.
        let n = unsafe { libc::pwrite(fd, data.as_ptr().cast(), data.len(), offset as libc::off_t) };
        if n == data.len() as isize {
            Ok(())
        } else if n < 0 {
            Err(errno())
        } else {
            Err(libc::EIO)
        }
    }

    fn eventfd(&mut self) -> Result<Fd, i32> {
        // SAFETY: creates a new descriptor; no memory is passed.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
        if fd < 0 {
            Err(errno())
        } else {
            Ok(fd)
        }
    }

    fn wait_readable(&mut self, fd: Fd, timeout: Duration) -> Result<bool, i32> {
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one pollfd, alive and exclusively borrowed for the call.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n < 0 {
            Err(errno())
        } else {
            Ok(n > 0 && p.revents & libc::POLLIN != 0)
        }
    }

    fn read_u64(&mut self, fd: Fd) -> Result<u64, i32> {
        let mut b = [0u8; 8];
        // SAFETY: `b` is writable for 8 bytes during the call.
        let n = unsafe { libc::read(fd, b.as_mut_ptr().cast(), 8) };
        if n == 8 {
            Ok(u64::from_ne_bytes(b))
        } else if n < 0 {
            Err(errno())
        } else {
            Err(libc::EIO)
        }
    }

    fn read_link(&mut self, path: &str) -> Result<String, i32> {
        std::fs::read_link(path)
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, i32> {
        let rd = std::fs::read_dir(path).map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
        let mut names: Vec<String> =
            rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        Ok(names)
    }
}
