//! A mistake in a pack ([`PackError`]): the file, line and field it names, and what is
//! wrong; the content, quiz and scenario readers' errors become one.

use super::limits::MAX_ERRORS;
use crate::lesson::content::ContentError;
use crate::lesson::quiz::QuizError;
use crate::sim::scenario::ScenarioError;
use std::fmt;

/// A mistake in a pack: the file, the 1-based line, the field, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl PackError {
    pub(super) fn new(file: &str, line: usize, field: &str, message: impl Into<String>) -> PackError {
        PackError {
            file: file.to_string(),
            line: line.max(1),
            field: if field.is_empty() {
                "toml".into()
            } else {
                field.to_string()
            },
            message: message.into(),
        }
    }

    /// A file that could not be read or fetched (`reason` says why).
    pub fn unreadable(file: &str, reason: &str) -> PackError {
        PackError::new(file, 1, "file", format!("cannot read: {reason}"))
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.file, self.line, self.field, self.message)
    }
}

impl std::error::Error for PackError {}

impl From<ContentError> for PackError {
    fn from(e: ContentError) -> Self {
        PackError::new(&e.file, e.line, &e.field, e.message)
    }
}

impl From<QuizError> for PackError {
    fn from(e: QuizError) -> Self {
        PackError::new(&e.file, e.line, &e.field, e.message)
    }
}

impl From<ScenarioError> for PackError {
    fn from(e: ScenarioError) -> Self {
        PackError::new(&e.file, e.line.unwrap_or(1), &e.field, e.message)
    }
}

/// At most [`MAX_ERRORS`] errors, the last one saying how many more there were.
pub(super) fn cap_errors(mut errors: Vec<PackError>) -> Vec<PackError> {
    if errors.len() > MAX_ERRORS {
        let more = errors.len() - (MAX_ERRORS - 1);
        errors.truncate(MAX_ERRORS - 1);
        let file = errors.last().map(|e| e.file.clone()).unwrap_or_default();
        errors.push(PackError::new(
            &file,
            1,
            "file",
            format!(
                "… and {more} more errors (only the first {} are shown)",
                MAX_ERRORS - 1
            ),
        ));
    }
    errors
}

/// The error for a file over [`MAX_FILE_BYTES`] (or `limit`), if it is.
pub(super) fn too_big(file: &str, len: usize, limit: usize, what: &str) -> Option<PackError> {
    (len > limit).then(|| {
        PackError::new(
            file,
            1,
            "file",
            format!("{what} is {len} bytes; at most {limit} are allowed"),
        )
    })
}
