//! Which vector kernels this process runs, picked at run time: the AVX2 or
//! baseline build of the kernels compiled twice (the evaluators' word loops),
//! and, inside this crate, the register width of the x86 kernels that work
//! on 128-bit blocks (VAES in [`wide_aes`](crate::wide_aes), VPCLMULQDQ in
//! [`Gf128`](crate::Gf128)).

/// A width of vector register holding whole 128-bit lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// AVX-512 (F and BW): four lanes per register.
    Zmm,
    /// AVX2 (e.g. AMD Zen 3, which has VAES and VPCLMULQDQ but no
    /// AVX-512): two lanes.
    Ymm,
}

impl Width {
    /// Every width, widest first.
    pub(crate) const ALL: [Width; 2] = [Width::Zmm, Width::Ymm];

    /// 128-bit lanes per register.
    pub(crate) fn lanes(self) -> usize {
        match self {
            Width::Zmm => 4,
            Width::Ymm => 2,
        }
    }

    /// Whether this CPU has the vector instructions of this width (the
    /// block instruction itself, VAES or VPCLMULQDQ, is the caller's check).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn has_vectors(self) -> bool {
        match self {
            Width::Zmm => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            Width::Ymm => std::arch::is_x86_feature_detected!("avx2"),
        }
    }

    /// The widest width `supports` allows, if any.
    pub(crate) fn widest(supports: impl Fn(Width) -> bool) -> Option<Width> {
        Width::ALL.into_iter().find(|&w| supports(w))
    }
}

/// Whether the kernels compiled twice (baseline x86-64 and AVX2, picked at
/// run time) run their AVX2 build: the CPU has AVX2 and `HUDDLE_NO_AVX2` is
/// unset (set, it selects the baseline build: tests run both, and a user can
/// compare them). Decided once per process.
#[inline]
pub fn has_avx2() -> bool {
    static USE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USE.get_or_init(|| {
        let off = std::env::var_os("HUDDLE_NO_AVX2").is_some_and(|v| !v.is_empty() && v != "0");
        cpu_has_avx2() && !off
    })
}

/// The build of the twice-compiled kernels this process runs ("avx2" or
/// "baseline"), as run reports name it.
pub fn kernels() -> &'static str {
    if has_avx2() {
        "avx2"
    } else {
        "baseline"
    }
}

/// Whether this CPU has AVX2, whatever `HUDDLE_NO_AVX2` says (which build
/// [`has_avx2`] can pick at all).
pub fn cpu_has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
