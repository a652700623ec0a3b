//! Random numbers from the operating system's CSPRNG (`getrandom(2)`), for
//! memory keys a peer cannot predict (docs/memory.md).

use super::HwError;

/// A random 32-bit number from the kernel's CSPRNG.
pub fn random_u32() -> Result<u32, HwError> {
    let mut b = [0u8; 4];
    let mut got = 0;
    while got < b.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `b`,
        // a live local array; getrandom writes at most that many bytes.
        let n = unsafe { libc::getrandom(b[got..].as_mut_ptr().cast(), b.len() - got, 0) };
        if n < 0 {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            if errno == libc::EINTR {
                continue;
            }
            return Err(HwError::Os { op: "getrandom".into(), errno });
        }
        got += n as usize;
    }
    Ok(u32::from_ne_bytes(b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn draws_differ() {
        let a: Vec<u32> = (0..8).map(|_| super::random_u32().unwrap()).collect();
        assert!(a.windows(2).any(|w| w[0] != w[1]));
    }
}
