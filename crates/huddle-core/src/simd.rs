//! Which vector kernels this process runs, picked at run time: the AVX-512,
//! AVX2 or baseline build of the kernels compiled once per instruction set
//! (the evaluators' word loops, [`Kernels`]),
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

/// A build of the kernels compiled several times from the same source (the
/// evaluators' word loops: bitsliced AND/XOR layers, linear runs, ring
/// arithmetic), one per instruction set, picked at run time: plain loops
/// that the compiler vectorizes for the registers of the build's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kernels {
    /// Baseline x86-64 (SSE2), or any other architecture.
    Baseline,
    /// AVX2: 256-bit registers.
    Avx2,
    /// AVX-512 (F and BW): 512-bit registers.
    Avx512,
}

/// The environment variable that caps the build a process runs
/// (`baseline`, `avx2` or `avx512`): tests run every build the CPU has,
/// and a user can compare them. Unset or empty, the widest the CPU has.
pub const KERNELS_VAR: &str = "HUDDLE_KERNELS";

impl Kernels {
    /// Every build, narrowest first.
    pub const ALL: [Kernels; 3] = [Kernels::Baseline, Kernels::Avx2, Kernels::Avx512];

    /// The build's name, as run reports and [`KERNELS_VAR`] spell it.
    pub fn name(self) -> &'static str {
        match self {
            Kernels::Baseline => "baseline",
            Kernels::Avx2 => "avx2",
            Kernels::Avx512 => "avx512",
        }
    }

    /// The build named `name`, if any.
    pub fn from_name(name: &str) -> Option<Kernels> {
        Kernels::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether this CPU runs this build.
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Kernels::Baseline => true,
                Kernels::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                Kernels::Avx512 => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Kernels::Baseline
        }
    }

    /// The widest build this CPU runs.
    pub fn widest_supported() -> Kernels {
        Kernels::ALL
            .into_iter()
            .rev()
            .find(|k| k.supported())
            .unwrap_or(Kernels::Baseline)
    }
}

/// The cap [`KERNELS_VAR`] sets, if any; an unknown name is an error naming
/// the variable and the builds (the CLI refuses it before a run; the
/// library then runs the widest build the CPU has).
pub fn kernels_cap() -> Result<Option<Kernels>, String> {
    match std::env::var(KERNELS_VAR) {
        Err(_) => Ok(None),
        Ok(v) if v.is_empty() => Ok(None),
        Ok(v) => Kernels::from_name(&v).map(Some).ok_or_else(|| {
            let names: Vec<&str> = Kernels::ALL.iter().map(|k| k.name()).collect();
            format!(
                "{KERNELS_VAR}={v:?} names no build of the kernels (one of {})",
                names.join(", ")
            )
        }),
    }
}

/// The build this process runs: the widest the CPU has, at most the one
/// [`KERNELS_VAR`] names. Decided once per process.
#[inline]
pub fn kernels_in_use() -> Kernels {
    static USE: std::sync::OnceLock<Kernels> = std::sync::OnceLock::new();
    *USE.get_or_init(|| {
        let widest = Kernels::widest_supported();
        match kernels_cap() {
            Ok(Some(cap)) => cap.min(widest),
            _ => widest,
        }
    })
}

/// The name of the build this process runs, as run reports give it.
pub fn kernels() -> &'static str {
    kernels_in_use().name()
}
