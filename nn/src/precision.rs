//! The arithmetic a [`crate::FastNet`] runs its tower in: [`NetPrecision`].
//!
//! fp32 is the default and the reference; int8 (`conv3x3_i8`) runs
//! the tower's 3x3 convolutions on bytes, several times the multiply-adds
//! per instruction where the CPU has AVX-512 VNNI. `nn/tests/int8.rs` keeps
//! it within bounds of fp32 on each game (policy top-1, value, KL).
//!
//! Precision is a property of the machine, not of the network, so a model
//! file never records it. Every network a process loads takes the
//! process's precision ([`process_precision`]): the command line's
//! `--precision` flag, else `PACOZERO_PRECISION` in the environment, else
//! the configuration's `[net] precision` (a loop's), else fp32.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

    /// Whether this is fp32 (the default, left out of written configurations).
    pub fn is_fp32(&self) -> bool {
        *self == NetPrecision::Fp32
    }

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

impl Serialize for NetPrecision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for NetPrecision {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The process's choices, by where they came from (see the module doc).
static FROM_FLAG: Mutex<Option<NetPrecision>> = Mutex::new(None);
static FROM_CONFIG: Mutex<Option<NetPrecision>> = Mutex::new(None);

/// The command line's `--precision`: it wins over everything else.
pub fn set_from_flag(precision: NetPrecision) {
    *FROM_FLAG.lock().unwrap_or_else(|e| e.into_inner()) = Some(precision);
}

/// A configuration's `[net] precision` (a loop's): it applies unless the
/// flag or the environment chose.
pub fn set_from_config(precision: NetPrecision) {
    *FROM_CONFIG.lock().unwrap_or_else(|e| e.into_inner()) = Some(precision);
}

/// The precision the networks of this process run in: the flag, else
/// `PACOZERO_PRECISION`, else the configuration's, else fp32. A
/// `PACOZERO_PRECISION` that names no precision is an error naming it.
pub fn process_precision() -> NnResult<NetPrecision> {
    let env = match std::env::var("PACOZERO_PRECISION") {
        Ok(name) if !name.is_empty() => Some(name.parse().map_err(|e| NnError::Config(format!("PACOZERO_PRECISION: {e}")))?),
        _ => None,
    };
    let flag = *FROM_FLAG.lock().unwrap_or_else(|e| e.into_inner());
    let config = *FROM_CONFIG.lock().unwrap_or_else(|e| e.into_inner());
    Ok(resolve(flag, env, config))
}

/// The order of [`process_precision`]'s sources, first given first.
fn resolve(flag: Option<NetPrecision>, env: Option<NetPrecision>, config: Option<NetPrecision>) -> NetPrecision {
    flag.or(env).or(config).unwrap_or_default()
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

    #[test]
    fn the_flag_wins_then_the_environment_then_the_configuration() {
        use NetPrecision::*;
        assert_eq!(resolve(None, None, None), Fp32);
        assert_eq!(resolve(None, None, Some(Auto)), Auto);
        assert_eq!(resolve(None, Some(Int8), Some(Auto)), Int8);
        assert_eq!(resolve(Some(Fp32), Some(Int8), Some(Auto)), Fp32);
        assert_eq!(resolve(Some(Auto), None, None), Auto);
    }

    #[test]
    fn a_precision_is_a_string_in_configurations() {
        #[derive(Serialize, Deserialize)]
        struct T {
            precision: NetPrecision,
        }
        let t: T = toml::from_str("precision = \"auto\"").unwrap();
        assert_eq!(t.precision, NetPrecision::Auto);
        assert_eq!(toml::to_string(&T { precision: NetPrecision::Int8 }).unwrap().trim(), "precision = \"int8\"");
        let e = toml::from_str::<T>("precision = \"bf16\"").err().unwrap().to_string();
        assert!(e.contains("\"bf16\" is not a precision"), "{e}");
    }
}
