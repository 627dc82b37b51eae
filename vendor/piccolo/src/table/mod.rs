mod raw;
mod table;

pub use self::{
    raw::{InvalidTableKey, NextValue, RawTable},
    table::{Table, TableInner, TableState},
};
