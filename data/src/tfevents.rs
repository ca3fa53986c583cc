//! TensorBoard event files: scalars a run writes beside its CSV and JSONL
//! files, so that the runs under one parent directory compare side by side
//! in TensorBoard (`tensorboard --logdir runs/`).
//!
//! ## Layout
//!
//! `<run>/tensorboard/train/` holds the trainer's scalars (step = training
//! step), `<run>/tensorboard/loop/` the loop's (step = generation); each is
//! one TensorBoard run. A process writes its own file,
//! `events.out.tfevents.<unix seconds>.<host>.<pid>.<n>`; TensorBoard reads
//! every file of a folder in order, so a resumed run simply adds one. A step
//! written before a crash may be written again after it: TensorBoard shows
//! the later value.
//!
//! ## Format (TensorFlow's record framing around `Event` protocol buffers)
//!
//! | part | bytes | content |
//! |---|---|---|
//! | length | 8 | the payload's length, little-endian u64 |
//! | length CRC | 4 | masked CRC-32C of the 8 length bytes, little-endian |
//! | payload | length | one serialised `Event` |
//! | payload CRC | 4 | masked CRC-32C of the payload, little-endian |
//!
//! The mask is `((crc >> 15) | (crc << 17)) + 0xa282ead8` (wrapping). The
//! first event of a file carries only `file_version = "brain.Event:2"`;
//! every other carries a wall time, a step and a `Summary` of
//! `simple_value` scalars. The fields used (numbers from TensorFlow's
//! `tensorflow/core/util/event.proto` and
//! `tensorflow/core/framework/summary.proto`):
//!
//! | message | field | number | wire type |
//! |---|---|---|---|
//! | `Event` | `wall_time` (double, seconds) | 1 | 64-bit |
//! | `Event` | `step` (int64) | 2 | varint |
//! | `Event` | `file_version` (string) | 3 | length-delimited |
//! | `Event` | `summary` (`Summary`) | 5 | length-delimited |
//! | `Summary` | `value` (repeated `Summary.Value`) | 1 | length-delimited |
//! | `Summary.Value` | `tag` (string) | 1 | length-delimited |
//! | `Summary.Value` | `simple_value` (float) | 2 | 32-bit |

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::durable::DiskFile;
use crate::error::{io_err, Result};

/// `Event.wall_time`, `Event.step`, `Event.file_version`, `Event.summary`.
const EVENT_WALL_TIME: u32 = 1;
const EVENT_STEP: u32 = 2;
const EVENT_FILE_VERSION: u32 = 3;
const EVENT_SUMMARY: u32 = 5;
/// `Summary.value`.
const SUMMARY_VALUE: u32 = 1;
/// `Summary.Value.tag`, `Summary.Value.simple_value`.
const VALUE_TAG: u32 = 1;
const VALUE_SIMPLE_VALUE: u32 = 2;

/// Protocol-buffer wire types.
const WIRE_VARINT: u32 = 0;
const WIRE_64BIT: u32 = 1;
const WIRE_LEN: u32 = 2;
const WIRE_32BIT: u32 = 5;

/// The version string TensorBoard expects in a file's first event.
const FILE_VERSION: &str = "brain.Event:2";

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, field: u32, wire: u32) {
    varint(out, ((field << 3) | wire) as u64);
}

fn bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    key(out, field, WIRE_LEN);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// One serialised `Event`: a step's scalars, or (`values` empty and `step`
/// `None`) the file-version event.
fn event(wall_time: f64, step: Option<i64>, values: &[(&str, f64)]) -> Vec<u8> {
    let mut e = Vec::new();
    key(&mut e, EVENT_WALL_TIME, WIRE_64BIT);
    e.extend_from_slice(&wall_time.to_le_bytes());
    match step {
        None => bytes_field(&mut e, EVENT_FILE_VERSION, FILE_VERSION.as_bytes()),
        Some(step) => {
            key(&mut e, EVENT_STEP, WIRE_VARINT);
            // int64 is a two's-complement varint.
            varint(&mut e, step as u64);
            let mut summary = Vec::new();
            for (tag, v) in values {
                let mut value = Vec::new();
                bytes_field(&mut value, VALUE_TAG, tag.as_bytes());
                key(&mut value, VALUE_SIMPLE_VALUE, WIRE_32BIT);
                value.extend_from_slice(&(*v as f32).to_le_bytes());
                bytes_field(&mut summary, SUMMARY_VALUE, &value);
            }
            bytes_field(&mut e, EVENT_SUMMARY, &summary);
        }
    }
    e
}

/// TensorFlow's masked CRC-32C.
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// One framed record.
fn record(payload: &[u8]) -> Vec<u8> {
    let len = (payload.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(payload.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&masked_crc(payload).to_le_bytes());
    out
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Writes scalars to a new event file in a folder (created if missing).
pub struct EventWriter {
    file: DiskFile,
}

impl EventWriter {
    /// A new event file in `dir`, its file-version event written.
    pub fn create(dir: &Path) -> Result<EventWriter> {
        static FILES: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_else(|_| "localhost".into());
        let secs = now() as u64;
        let name = format!("events.out.tfevents.{secs}.{host}.{}.{}", std::process::id(), FILES.fetch_add(1, Ordering::Relaxed));
        let path = dir.join(name);
        let file = DiskFile::open_append(&path).map_err(io_err(&path))?;
        let mut w = EventWriter { file };
        w.write(&event(now(), None, &[]))?;
        Ok(w)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// One event of `values` at `step`; non-finite values are left out (as
    /// the CSV leaves them empty).
    pub fn scalars(&mut self, step: i64, values: &[(&str, f64)]) -> Result<()> {
        let finite: Vec<(&str, f64)> = values.iter().copied().filter(|(_, v)| v.is_finite()).collect();
        if finite.is_empty() {
            return Ok(());
        }
        self.write(&event(now(), Some(step), &finite))
    }

    fn write(&mut self, payload: &[u8]) -> Result<()> {
        // A record is appended whole or not at all (a full disk), so the file stays readable to its end.
        self.file.append_whole(&record(payload), false).map_err(io_err(self.file.path()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_seven_bits_a_byte_low_first() {
        let enc = |v: u64| {
            let mut out = Vec::new();
            varint(&mut out, v);
            out
        };
        assert_eq!(enc(0), [0x00]);
        assert_eq!(enc(127), [0x7F]);
        assert_eq!(enc(128), [0x80, 0x01]);
        // 255: a low byte with its top bit already set.
        assert_eq!(enc(255), [0xFF, 0x01]);
        assert_eq!(enc(300), [0xAC, 0x02]);
        assert_eq!(enc(u64::MAX), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]);
    }

    #[test]
    fn the_masked_crc_of_known_bytes() {
        // CRC-32C("123456789") = 0xE3069283 (the check value of the
        // Castagnoli polynomial); masked as TensorFlow masks it.
        let crc: u32 = 0xE306_9283;
        assert_eq!(crc32c::crc32c(b"123456789"), crc);
        // ((crc >> 15) | (crc << 17)) + 0xa282ead8, worked out by hand.
        assert_eq!(masked_crc(b"123456789"), 0xC78A_B0E5);
    }

    #[test]
    fn a_scalar_event_encodes_its_fields() {
        let e = event(1.5, Some(300), &[("train/loss", 0.25)]);
        // wall_time: key 0x09, then 8 bytes.
        assert_eq!(e[0], 0x09);
        assert_eq!(&e[1..9], &1.5f64.to_le_bytes());
        // step: key 0x10, varint 300 = 0xAC 0x02.
        assert_eq!(&e[9..12], &[0x10, 0xAC, 0x02]);
        // summary (0x2A) holding one value (0x0A) with its tag (0x0A) and
        // simple_value (0x15, four bytes).
        assert_eq!(e[12], 0x2A);
        let tail = &e[e.len() - 5..];
        assert_eq!(tail[0], 0x15);
        assert_eq!(&tail[1..], &0.25f32.to_le_bytes());
        assert!(e.windows(10).any(|w| w == b"train/loss"));
    }

    #[test]
    fn records_frame_their_payload() {
        let r = record(b"abc");
        assert_eq!(&r[..8], &3u64.to_le_bytes());
        assert_eq!(&r[8..12], &masked_crc(&3u64.to_le_bytes()).to_le_bytes());
        assert_eq!(&r[12..15], b"abc");
        assert_eq!(&r[15..], &masked_crc(b"abc").to_le_bytes());
    }

    #[test]
    fn events_carry_the_wall_time_of_their_writing() {
        let dir = tempfile::tempdir().unwrap();
        let clock = || SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
        let before = clock();
        let mut w = EventWriter::create(dir.path()).unwrap();
        w.scalars(7, &[("x", 1.0)]).unwrap();
        let after = clock();
        let bytes = std::fs::read(w.path()).unwrap();
        let mut times = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            let payload = &bytes[at + 12..at + 12 + len];
            assert_eq!(payload[0], 0x09, "wall_time first");
            times.push(f64::from_le_bytes(payload[1..9].try_into().unwrap()));
            at += 12 + len + 4;
        }
        assert_eq!(times.len(), 2, "the file-version event and one step");
        assert!(times.iter().all(|&t| t >= before && t <= after), "{times:?} not within [{before}, {after}]");
        let name = w.path().file_name().unwrap().to_string_lossy().into_owned();
        let secs: u64 = name.strip_prefix("events.out.tfevents.").unwrap().split('.').next().unwrap().parse().unwrap();
        assert!(secs >= before as u64 && secs <= after as u64, "{name}");
    }

    #[test]
    fn a_writer_leaves_out_non_finite_values() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = EventWriter::create(dir.path()).unwrap();
        let before = std::fs::metadata(w.path()).unwrap().len();
        w.scalars(1, &[("x", f64::NAN)]).unwrap();
        assert_eq!(std::fs::metadata(w.path()).unwrap().len(), before, "nothing finite, nothing written");
        w.scalars(1, &[("x", 1.0), ("y", f64::INFINITY)]).unwrap();
        assert!(std::fs::metadata(w.path()).unwrap().len() > before);
    }
}
