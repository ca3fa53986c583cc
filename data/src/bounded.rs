//! Reading Parquet files from others within bounds.
//!
//! A Parquet file says how many rows and values it holds, and its pages
//! may be run-length encoded: a list of 10^9 zeros takes a few bytes on
//! disk and gigabytes once decoded. Nothing the file declares sizes an
//! allocation before it is checked:
//!
//! * the footer: row groups add up to the file's row count, no file holds
//!   more than [`MAX_ROWS_PER_FILE`] rows, every column chunk lies within the
//!   file, and its declared values fit the rows (a list column holds at most
//!   the spec's length per row, e.g. `policy_size` for `policy`);
//! * every page, before it is decoded: the pages of a column chunk hold no
//!   more values than the footer declared, and a row group decodes to at most
//!   [`MAX_DECODED_BYTES_PER_ROW_GROUP`] (strings through a dictionary count
//!   their longest entry per value).
//!
//! Batches never span row groups, so a batch decodes to at most that bound.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowGroups};
use parquet::arrow::{parquet_to_arrow_field_levels, ProjectionMask};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::{Page, PageIterator, PageMetadata, PageReader};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData, RowGroupMetaData};
use parquet::file::serialized_reader::SerializedPageReader;
use parquet::schema::types::ColumnDescriptor;

use crate::error::{arrow_err, io_err, pq_err, DataError, Result};

/// Most rows one file may hold (2^24, about 16.8 million). PacoZero's
/// chunks hold a few hundred games, tens of thousands of positions.
pub const MAX_ROWS_PER_FILE: u64 = 1 << 24;

/// Most bytes one row group may decode to (1 GiB): values and their
/// repetition and definition levels, as counted by `level_width`.
pub const MAX_DECODED_BYTES_PER_ROW_GROUP: u64 = 1 << 30;

/// Rows per batch: a batch never spans row groups, so it holds at most
/// this many rows and at most one row group's bytes.
const BATCH_ROWS: usize = 8192;

/// A Parquet file opened for bounded reading: its footer read and checked.
pub(crate) struct BoundedFile {
    path: PathBuf,
    file: Arc<File>,
    metadata: Arc<ParquetMetaData>,
    schema: SchemaRef,
}

/// Most values (repetition levels) one row of a column may hold; `None`
/// where nothing bounds it but [`MAX_DECODED_BYTES_PER_ROW_GROUP`].
pub(crate) type PerRowLimit<'a> = &'a dyn Fn(&str) -> Option<u64>;

impl BoundedFile {
    /// Opens `path` and checks that its row groups add up to its row count
    /// (at most [`MAX_ROWS_PER_FILE`]) and that every column chunk lies
    /// within the file.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io_err(path))?;
        let size = file.metadata().map_err(io_err(path))?.len();
        let builder = ParquetRecordBatchReaderBuilder::try_new(file.try_clone().map_err(io_err(path))?).map_err(pq_err(path))?;
        let bounded = BoundedFile { path: path.into(), file: Arc::new(file), metadata: builder.metadata().clone(), schema: builder.schema().clone() };
        bounded.check_footer(size)?;
        Ok(bounded)
    }

    /// The Arrow schema (with the file's embedded schema's metadata).
    pub(crate) fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The footer's and the Arrow schema's key-value metadata, the footer's winning.
    pub(crate) fn key_values(&self) -> HashMap<String, String> {
        let mut m: HashMap<String, String> = self.schema.metadata().clone().into();
        if let Some(kv) = self.metadata.file_metadata().key_value_metadata() {
            for e in kv {
                if let Some(v) = &e.value {
                    m.insert(e.key.clone(), v.clone());
                }
            }
        }
        m
    }

    /// Rows the file holds (checked by [`BoundedFile::open`]).
    pub(crate) fn num_rows(&self) -> u64 {
        self.metadata.file_metadata().num_rows() as u64
    }

    fn footer_error(&self, message: String) -> DataError {
        DataError::Metadata { path: self.path.clone(), message }
    }

    fn check_footer(&self, file_size: u64) -> Result<()> {
        let declared = self.metadata.file_metadata().num_rows();
        if declared < 0 || declared as u64 > MAX_ROWS_PER_FILE {
            return Err(self.footer_error(format!("the footer declares {declared} rows, must be in 0..={MAX_ROWS_PER_FILE}")));
        }
        let mut sum = 0u64;
        for (g, rg) in self.metadata.row_groups().iter().enumerate() {
            let rows = u64::try_from(rg.num_rows()).map_err(|_| self.footer_error(format!("row group {g} declares {} rows", rg.num_rows())))?;
            sum = sum
                .checked_add(rows)
                .filter(|&s| s <= MAX_ROWS_PER_FILE)
                .ok_or_else(|| self.footer_error(format!("the row groups declare more than {MAX_ROWS_PER_FILE} rows (row group {g} declares {rows})")))?;
            for c in rg.columns() {
                self.check_chunk_range(g, c, file_size)?;
            }
        }
        if sum != declared as u64 {
            return Err(self.footer_error(format!("the footer declares {declared} rows but its row groups hold {sum}")));
        }
        Ok(())
    }

    /// The column chunk's bytes lie within the file (the Parquet crate
    /// asserts, panicking, that they do not start before it).
    fn check_chunk_range(&self, group: usize, c: &ColumnChunkMetaData, file_size: u64) -> Result<()> {
        let start = c.dictionary_page_offset().unwrap_or(c.data_page_offset());
        let len = c.compressed_size();
        let end = u64::try_from(start).ok().zip(u64::try_from(len).ok()).and_then(|(s, l)| s.checked_add(l));
        match end {
            Some(end) if end <= file_size && c.num_values() >= 0 => Ok(()),
            _ => Err(self.footer_error(format!(
                "row group {group}, column `{}`: {} values in bytes {start}..{start}+{len}, outside the file's {file_size} bytes",
                c.column_path(),
                c.num_values()
            ))),
        }
    }

    /// Reads the top-level `columns` (others are not decoded), one row group
    /// at a time, handing each batch to `each`. `per_row` bounds a column's
    /// values per row (by top-level name).
    pub(crate) fn read(&self, columns: &[&str], per_row: PerRowLimit, mut each: impl FnMut(RecordBatch) -> Result<()>) -> Result<()> {
        let descr = self.metadata.file_metadata().schema_descr();
        let mask = ProjectionMask::columns(descr, columns.iter().copied());
        let levels = parquet_to_arrow_field_levels(descr, mask.clone(), Some(self.schema.fields())).map_err(pq_err(&self.path))?;
        let leaves: Vec<usize> = (0..descr.num_columns()).filter(|&i| mask.leaf_included(i)).collect();
        for g in 0..self.metadata.num_row_groups() {
            let rg = self.metadata.row_group(g);
            self.check_declared_values(g, rg, &leaves, per_row)?;
            let group = CheckedRowGroup { file: self, group: g, budget: Arc::new(Budget::default()) };
            let mut reader = ParquetRecordBatchReader::try_new_with_row_groups(&levels, &group, BATCH_ROWS, None).map_err(pq_err(&self.path))?;
            while let Some(batch) = guarded(&self.path, || reader.next())? {
                let batch = batch.map_err(|e| group.budget.error().unwrap_or_else(|| arrow_err(&self.path)(e)))?;
                each(batch)?;
            }
        }
        Ok(())
    }

    /// Each column chunk's declared values fit its rows, and the row group's
    /// fixed-width columns decode within the bound.
    fn check_declared_values(&self, g: usize, rg: &RowGroupMetaData, leaves: &[usize], per_row: PerRowLimit) -> Result<()> {
        let rows = rg.num_rows() as u64;
        let mut decoded = 0u64;
        for &i in leaves {
            let c = rg.column(i);
            let descr = c.column_descr();
            let top = top_name(descr);
            let values = c.num_values() as u64;
            // An empty list still takes one level.
            let most = per_row(top).map(|n| n.max(1)).unwrap_or(u64::MAX);
            if values > rows.saturating_mul(most) {
                return Err(
                    self.footer_error(format!("row group {g}, column `{top}`: {values} values declared for {rows} rows, more than the {most} a row may hold"))
                );
            }
            decoded = decoded.saturating_add(values.saturating_mul(level_width(descr)));
        }
        if decoded > MAX_DECODED_BYTES_PER_ROW_GROUP {
            return Err(DataError::TooLarge { path: self.path.clone(), message: format!(
                "row group {g} would decode to {decoded} bytes, more than the {MAX_DECODED_BYTES_PER_ROW_GROUP} a row group may (rewrite it with smaller row groups)"
            ) });
        }
        Ok(())
    }
}

/// The top-level column a leaf belongs to (`policy` of `policy.list.item`).
fn top_name(descr: &ColumnDescriptor) -> &str {
    descr.path().parts().first().map(String::as_str).unwrap_or("")
}

/// Bytes one value of a leaf column takes once decoded, with its levels
/// (two bytes each); a string counts its offset here and its bytes as its
/// pages are read.
fn level_width(descr: &ColumnDescriptor) -> u64 {
    let value = match descr.physical_type() {
        PhysicalType::BOOLEAN => 1,
        PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 4,
        PhysicalType::INT64 | PhysicalType::DOUBLE => 8,
        PhysicalType::INT96 => 12,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => descr.type_length().max(0) as u64,
    };
    let levels = 2 * (u64::from(descr.max_def_level() > 0) + u64::from(descr.max_rep_level() > 0));
    value + levels
}

/// What a row group has decoded so far, shared by its columns' page
/// readers, and the first refusal (kept here: the Parquet error that
/// carries it up through the reader is only text).
#[derive(Default)]
struct Budget {
    decoded: AtomicU64,
    refusal: Mutex<Option<DataError>>,
}

impl Budget {
    fn error(&self) -> Option<DataError> {
        self.refusal.lock().ok()?.take()
    }
}

/// One row group of a [`BoundedFile`], its pages checked as they are read.
struct CheckedRowGroup<'a> {
    file: &'a BoundedFile,
    group: usize,
    budget: Arc<Budget>,
}

impl RowGroups for CheckedRowGroup<'_> {
    fn num_rows(&self) -> usize {
        self.file.metadata.row_group(self.group).num_rows() as usize
    }

    fn column_chunks(&self, i: usize) -> parquet::errors::Result<Box<dyn PageIterator>> {
        let rg = self.file.metadata.row_group(self.group);
        let meta = rg.column(i);
        let inner = SerializedPageReader::new(self.file.file.clone(), meta, rg.num_rows() as usize, None)?;
        let reader = CheckedPages {
            inner,
            path: self.file.path.clone(),
            context: format!("row group {}, column `{}`", self.group, top_name(meta.column_descr())),
            declared_values: meta.num_values() as u64,
            values: 0,
            width: level_width(meta.column_descr()),
            is_string: meta.column_type() == PhysicalType::BYTE_ARRAY,
            longest_entry: 0,
            has_dictionary: false,
            budget: self.budget.clone(),
        };
        Ok(Box::new(OnePageReader(Some(Box::new(reader)))))
    }

    fn row_groups(&self) -> Box<dyn Iterator<Item = &RowGroupMetaData> + '_> {
        Box::new(std::iter::once(self.file.metadata.row_group(self.group)))
    }

    fn metadata(&self) -> &ParquetMetaData {
        &self.file.metadata
    }
}

/// The page readers of one row group's column: just one.
struct OnePageReader(Option<Box<dyn PageReader>>);

impl Iterator for OnePageReader {
    type Item = parquet::errors::Result<Box<dyn PageReader>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.take().map(Ok)
    }
}

impl PageIterator for OnePageReader {}

thread_local! {
    /// Inside [`guarded`]: a panic here is the Parquet crate's, caught.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is decoding a file's pages inside the guard that
/// turns the Parquet crate's panics into errors: a panic hook may stay
/// silent then (the CLI's does), and the fuzz targets let such a panic
/// unwind to the guard instead of aborting.
pub fn decoding_guarded() -> bool {
    GUARDED.with(std::cell::Cell::get)
}

/// Runs `decode`, the Parquet crate's decoding of `path`'s pages, turning
/// a panic of that crate into an error naming the file. parquet 60.1
/// panics on some malformed pages where it should return an error (an RLE
/// run's length over ten bytes: `Num of bytes exceed MAX_VLQ_BYTE_LEN`,
/// found by the fuzz target `chunk`), and no check of ours before decoding
/// can see every such page.
fn guarded<T>(path: &Path, decode: impl FnOnce() -> T) -> Result<T> {
    GUARDED.with(|g| g.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode));
    GUARDED.with(|g| g.set(false));
    result.map_err(|panic| {
        let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
        DataError::Metadata { path: path.into(), message: format!("a malformed page the Parquet reader cannot decode ({what})") }
    })
}

/// A column chunk's pages, each checked before it is decoded: its values
/// stay within the footer's count and the row group's decoded bytes within
/// [`MAX_DECODED_BYTES_PER_ROW_GROUP`].
struct CheckedPages {
    inner: SerializedPageReader<File>,
    path: PathBuf,
    /// Row group and column, for the message.
    context: String,
    declared_values: u64,
    values: u64,
    width: u64,
    is_string: bool,
    /// Longest entry of a string column's dictionary: what each
    /// dictionary-encoded value decodes to at most.
    longest_entry: u64,
    /// A dictionary page came (or was skipped, to be taken later): the
    /// parquet crate panics on a dictionary-encoded page without one
    /// (`Decoder for dict should have been set`; found by the fuzz target
    /// `chunk`), so such a page is refused here.
    has_dictionary: bool,
    budget: Arc<Budget>,
}

impl CheckedPages {
    /// `footer`: the pages contradict the footer (else: too large to decode).
    fn refuse(&self, footer: bool, message: String) -> ParquetError {
        let message = format!("{}: {message}", self.context);
        let error = if footer {
            DataError::Metadata { path: self.path.clone(), message: message.clone() }
        } else {
            DataError::TooLarge { path: self.path.clone(), message: message.clone() }
        };
        if let Ok(mut r) = self.budget.refusal.lock() {
            r.get_or_insert(error);
        }
        ParquetError::General(message)
    }

    fn check(&mut self, page: Page) -> parquet::errors::Result<Page> {
        let bytes = match &page {
            Page::DictionaryPage { buf, .. } => {
                self.has_dictionary = true;
                if self.is_string {
                    self.longest_entry = longest_plain_string(buf);
                }
                buf.len() as u64
            }
            Page::DataPage { buf, num_values, encoding, .. } | Page::DataPageV2 { buf, num_values, encoding, .. } => {
                let n = u64::from(*num_values);
                self.values = self.values.saturating_add(n);
                if self.values > self.declared_values {
                    return Err(
                        self.refuse(true, format!("its pages hold more values ({} so far) than the footer declares ({})", self.values, self.declared_values))
                    );
                }
                let dictionary = matches!(encoding, Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY);
                if dictionary && !self.has_dictionary {
                    return Err(self.refuse(true, "a dictionary-encoded page comes before any dictionary page".to_string()));
                }
                let strings = if self.is_string && dictionary {
                    n.saturating_mul(self.longest_entry)
                } else if self.is_string {
                    buf.len() as u64
                } else {
                    0
                };
                n.saturating_mul(self.width).saturating_add(strings)
            }
        };
        let total = self.budget.decoded.fetch_add(bytes, Ordering::Relaxed).saturating_add(bytes);
        if total > MAX_DECODED_BYTES_PER_ROW_GROUP {
            return Err(self.refuse(
                false,
                format!("the row group would decode to more than {MAX_DECODED_BYTES_PER_ROW_GROUP} bytes (rewrite it with smaller row groups)"),
            ));
        }
        Ok(page)
    }
}

/// The longest string of a PLAIN-encoded byte-array dictionary page (each
/// entry a 4-byte little-endian length, then its bytes); a length past the
/// page's end counts as the page's length.
fn longest_plain_string(buf: &[u8]) -> u64 {
    let (mut at, mut longest) = (0usize, 0u64);
    while let Some(len) = buf.get(at..at + 4) {
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        longest = longest.max(len.min(buf.len()) as u64);
        at = at.saturating_add(4).saturating_add(len);
    }
    longest
}

impl Iterator for CheckedPages {
    type Item = parquet::errors::Result<Page>;
    fn next(&mut self) -> Option<Self::Item> {
        self.get_next_page().transpose()
    }
}

impl PageReader for CheckedPages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<Page>> {
        match self.inner.get_next_page()? {
            Some(page) => self.check(page).map(Some),
            None => Ok(None),
        }
    }

    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        self.inner.peek_next_page()
    }

    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        // A skipped dictionary is taken later (`take_deferred_dictionary`).
        if self.inner.peek_next_page()?.is_some_and(|m| m.is_dict) {
            self.has_dictionary = true;
        }
        self.inner.skip_next_page()
    }

    fn supports_deferred_dictionary(&self) -> bool {
        self.inner.supports_deferred_dictionary()
    }

    fn take_deferred_dictionary(&mut self) -> parquet::errors::Result<Option<Page>> {
        match self.inner.take_deferred_dictionary()? {
            Some(page) => self.check(page).map(Some),
            None => Ok(None),
        }
    }

    fn at_record_boundary(&mut self) -> parquet::errors::Result<bool> {
        self.inner.at_record_boundary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_the_guard_is_an_error_naming_the_file() {
        let path = Path::new("x/chunk.positions.parquet");
        assert_eq!(guarded(path, || 7).unwrap(), 7);
        let e = guarded(path, || -> u8 {
            assert!(decoding_guarded(), "inside the guard");
            panic!("Num of bytes exceed MAX_VLQ_BYTE_LEN (10)")
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "x/chunk.positions.parquet: bad file metadata: a malformed page the Parquet reader cannot decode (Num of bytes exceed MAX_VLQ_BYTE_LEN (10))"
        );
        assert!(!decoding_guarded(), "the guard is left");
    }
}
