//! The arithmetic a [`crate::FastNet`] runs its tower in: [`NetPrecision`].
//!
//! fp32 is the default and the reference; int8 ([`crate::conv3x3_i8`]) runs
//! the tower's 3x3 convolutions on bytes, several times the multiply-adds
//! per instruction where the CPU has AVX-512 VNNI. `nn/tests/int8.rs` keeps
//! it within bounds of fp32 on each game (policy top-1, value, KL).

use std::fmt;
use std::str::FromStr;

use crate::conv3x3_i8;
use crate::error::{NnError, NnResult};

/// The arithmetic of the tower's 3x3 convolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetPrecision {
    /// fp32 everywhere: the default and the reference.
    #[default]
    Fp32,
    /// int8 weights and activations, 32-bit sums (on CPUs without AVX-512
    /// VNNI through the scalar kernel: exact, but slower than fp32).
    Int8,
    /// int8 where the CPU has AVX-512 VNNI, else fp32.
    Auto,
}

impl NetPrecision {
    /// The names [`NetPrecision::from_str`] reads.
    pub const NAMES: [&'static str; 3] = ["fp32", "int8", "auto"];

    /// What the tower runs in on this CPU: `Auto` becomes `Int8` or `Fp32`.
    pub fn on_this_cpu(self) -> NetPrecision {
        match self {
            NetPrecision::Auto if conv3x3_i8::has_vnni() => NetPrecision::Int8,
            NetPrecision::Auto => NetPrecision::Fp32,
            p => p,
        }
    }
}

impl fmt::Display for NetPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NetPrecision::Fp32 => "fp32",
            NetPrecision::Int8 => "int8",
            NetPrecision::Auto => "auto",
        })
    }
}

impl FromStr for NetPrecision {
    type Err = NnError;

    fn from_str(s: &str) -> NnResult<Self> {
        match s {
            "fp32" => Ok(NetPrecision::Fp32),
            "int8" => Ok(NetPrecision::Int8),
            "auto" => Ok(NetPrecision::Auto),
            other => Err(NnError::Config(format!("{other:?} is not a precision; expected one of {:?}", NetPrecision::NAMES))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_precision_reads_its_name_and_refuses_others_naming_them() {
        for name in NetPrecision::NAMES {
            assert_eq!(name.parse::<NetPrecision>().unwrap().to_string(), name);
        }
        let e = "bf16".parse::<NetPrecision>().unwrap_err().to_string();
        assert_eq!(e, r#"invalid configuration: "bf16" is not a precision; expected one of ["fp32", "int8", "auto"]"#);
        assert_eq!(NetPrecision::default(), NetPrecision::Fp32);
    }

    #[test]
    fn auto_is_int8_exactly_where_the_cpu_has_vnni() {
        let want = if conv3x3_i8::has_vnni() { NetPrecision::Int8 } else { NetPrecision::Fp32 };
        assert_eq!(NetPrecision::Auto.on_this_cpu(), want);
        assert_eq!(NetPrecision::Fp32.on_this_cpu(), NetPrecision::Fp32);
        assert_eq!(NetPrecision::Int8.on_this_cpu(), NetPrecision::Int8);
    }
}
