//! The client protocol's messages: a sequence of frames, each a
//! little-endian `i32` length (its 6-byte header included), `u16` flags and
//! content. A message's first frame holds its type, correlation id and
//! fixed-size fields; the frames after it hold one variable-size field
//! each (a string, serialized data, a null), or open and close a nested
//! structure; the last carries [`FINAL`].

/// The header of a frame: its length and flags.
pub const HEADER: usize = 6;
/// A message that is not split in fragments.
pub const UNFRAGMENTED: u16 = 1 << 15 | 1 << 14;
/// The last frame of a message.
pub const FINAL: u16 = 1 << 13;
/// Opens a structure.
pub const BEGIN: u16 = 1 << 12;
/// Closes a structure.
pub const END: u16 = 1 << 11;
/// A null in place of a field.
pub const NULL: u16 = 1 << 10;
/// A message the member sends unasked: an event of a listener.
pub const EVENT: u16 = 1 << 9;
/// A request whose backups acknowledge it to the client, not to their
/// owner: the answer says how many to wait for.
pub const BACKUP_AWARE: u16 = 1 << 8;

/// The largest message this client takes: its own are far smaller, and a
/// member's answers to them (a member list, a partition table) too.
pub const MAX_MESSAGE: usize = 16 << 20;

/// Where a request's fields start in its first frame's content: after its
/// type, correlation id and partition id.
pub const REQUEST_FIELDS: usize = 16;
/// Where a response's fields start: after its type, correlation id and
/// the count of backup acknowledgements.
pub const RESPONSE_FIELDS: usize = 13;
/// Where an event's fields start: as a request's.
pub const EVENT_FIELDS: usize = 16;

/// What is wrong with bytes read as a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Malformed {
    /// A frame whose length is shorter than its header.
    #[error("a frame of length {0}, shorter than its 6-byte header")]
    Short(i32),
    /// A message over [`MAX_MESSAGE`].
    #[error("a message of more than {MAX_MESSAGE} bytes")]
    TooLong,
    /// A message in fragments, which no answer to this client needs.
    #[error("a message in fragments")]
    Fragmented,
    /// The bytes end inside a message.
    #[error("the bytes end inside a message")]
    Truncated,
    /// A field missing or out of its frame, or a frame of the wrong kind.
    #[error("{0}")]
    Field(&'static str),
}

type Result<T, E = Malformed> = std::result::Result<T, E>;

/// One frame: its flags and content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// [`FINAL`], [`BEGIN`], [`END`], [`NULL`], [`EVENT`] and the
    /// fragment bits.
    pub flags: u16,
    /// The bytes after the header.
    pub content: Vec<u8>,
}

impl Frame {
    fn has(&self, flag: u16) -> bool {
        self.flags & flag == flag
    }
}

/// The length of the content and the flags of a frame, from its header.
pub fn frame_header(header: [u8; HEADER]) -> Result<(usize, u16)> {
    let length = i32::from_le_bytes([header[0], header[1], header[2], header[3]]);
    let flags = u16::from_le_bytes([header[4], header[5]]);
    match usize::try_from(length) {
        Ok(n) if n >= HEADER => Ok((n - HEADER, flags)),
        _ => Err(Malformed::Short(length)),
    }
}

/// A whole message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// Its frames, the first one holding the fixed-size fields.
    pub frames: Vec<Frame>,
    /// The bytes of all its frames, headers included.
    size: usize,
}

impl Message {
    /// Adds a frame read from the wire: `true` once the message is whole.
    pub fn push(&mut self, frame: Frame) -> Result<bool> {
        if self.frames.is_empty() && !frame.has(UNFRAGMENTED) {
            return Err(Malformed::Fragmented);
        }
        self.size += HEADER + frame.content.len();
        if self.size > MAX_MESSAGE {
            return Err(Malformed::TooLong);
        }
        let last = frame.has(FINAL);
        self.frames.push(frame);
        Ok(last)
    }

    /// The first message in `bytes`, and how many bytes it took.
    pub fn parse(bytes: &[u8]) -> Result<(Message, usize)> {
        let mut message = Message::default();
        let mut at = 0;
        loop {
            let header = bytes
                .get(at..at + HEADER)
                .ok_or(Malformed::Truncated)?
                .try_into()
                .expect("six bytes");
            let (length, flags) = frame_header(header)?;
            let start = at + HEADER;
            if length > MAX_MESSAGE {
                return Err(Malformed::TooLong);
            }
            let content = bytes
                .get(start..start + length)
                .ok_or(Malformed::Truncated)?;
            at = start + length;
            let frame = Frame {
                flags,
                content: content.to_vec(),
            };
            if message.push(frame)? {
                return Ok((message, at));
            }
        }
    }

    fn first(&self) -> Result<&Frame> {
        self.frames
            .first()
            .ok_or(Malformed::Field("an empty message"))
    }

    /// The message's type.
    pub fn kind(&self) -> Result<i32> {
        Fields(&self.first()?.content).i32(0)
    }

    /// The correlation id: the request's, in its response or events.
    pub fn correlation(&self) -> Result<i64> {
        Fields(&self.first()?.content).i64(4)
    }

    /// How many backups acknowledge the request this answers
    /// ([`BACKUP_AWARE`]).
    pub fn backups(&self) -> Result<u8> {
        Fields(&self.first()?.content).u8(12)
    }

    /// Whether it is an event of a listener.
    pub fn is_event(&self) -> bool {
        self.frames.first().is_some_and(|f| f.has(EVENT))
    }

    /// Reads its fields, first frame first.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            frames: &self.frames,
            at: 0,
        }
    }
}

/// The fixed-size fields of a frame, little-endian, bounds checked.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a>(pub &'a [u8]);

impl Fields<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N]> {
        self.0
            .get(at..at + N)
            .and_then(|b| b.try_into().ok())
            .ok_or(Malformed::Field("a fixed-size field past its frame"))
    }

    /// A byte.
    pub fn u8(&self, at: usize) -> Result<u8> {
        Ok(self.bytes::<1>(at)?[0])
    }

    /// A boolean: one byte, 1 for true.
    pub fn bool(&self, at: usize) -> Result<bool> {
        Ok(self.u8(at)? == 1)
    }

    /// An `i32`.
    pub fn i32(&self, at: usize) -> Result<i32> {
        self.bytes(at).map(i32::from_le_bytes)
    }

    /// An `i64`.
    pub fn i64(&self, at: usize) -> Result<i64> {
        self.bytes(at).map(i64::from_le_bytes)
    }

    /// A UUID: a null flag, then its most and least significant halves.
    pub fn uuid(&self, at: usize) -> Result<Option<u128>> {
        if self.bool(at)? {
            return Ok(None);
        }
        let high = self.i64(at + 1)? as u64;
        let low = self.i64(at + 9)? as u64;
        Ok(Some(u128::from(high) << 64 | u128::from(low)))
    }
}

/// Reads a message's frames in order.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    frames: &'a [Frame],
    at: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Result<&'a Frame> {
        let frame = self
            .frames
            .get(self.at)
            .ok_or(Malformed::Field("a field past the message's end"))?;
        self.at += 1;
        Ok(frame)
    }

    fn peek(&self) -> Option<&'a Frame> {
        self.frames.get(self.at)
    }

    /// The fixed-size fields of the next frame.
    pub fn fields(&mut self) -> Result<Fields<'a>> {
        Ok(Fields(&self.next()?.content))
    }

    /// The next frame's content, as it is.
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let frame = self.next()?;
        match frame.has(NULL) || frame.has(BEGIN) || frame.has(END) {
            true => Err(Malformed::Field("a structure or null where bytes are")),
            false => Ok(&frame.content),
        }
    }

    /// A UTF-8 string.
    pub fn string(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec())
            .map_err(|_| Malformed::Field("a string that is not UTF-8"))
    }

    /// `None` for a null frame (consumed), else what `read` reads.
    pub fn nullable<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T>) -> Result<Option<T>> {
        if self.peek().is_some_and(|f| f.has(NULL)) {
            self.at += 1;
            return Ok(None);
        }
        read(self).map(Some)
    }

    /// Opens a structure.
    pub fn begin(&mut self) -> Result<()> {
        match self.next()?.has(BEGIN) {
            true => Ok(()),
            false => Err(Malformed::Field("a field where a structure begins")),
        }
    }

    /// Whether the next frame closes the structure.
    pub fn at_end(&self) -> bool {
        self.peek().is_some_and(|f| f.has(END))
    }

    /// Skips the rest of an open structure (fields a newer member added
    /// included), and its end.
    pub fn end(&mut self) -> Result<()> {
        let mut depth = 1_usize;
        while depth > 0 {
            let frame = self.next()?;
            if frame.has(END) {
                depth -= 1;
            } else if frame.has(BEGIN) {
                depth += 1;
            }
        }
        Ok(())
    }

    /// A list: a structure of items, each read by `item`.
    pub fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        self.begin()?;
        let mut items = Vec::new();
        while !self.at_end() {
            items.push(item(self)?);
        }
        self.at += 1;
        Ok(items)
    }
}

/// A request being written: its first frame, then a frame per field.
#[derive(Clone, Debug)]
pub struct Request {
    buf: Vec<u8>,
    /// Where the last frame starts.
    last: usize,
}

impl Request {
    /// A request of `kind` with `fields` bytes of fixed-size fields, on no
    /// partition in particular.
    pub fn new(kind: i32, fields: usize) -> Request {
        let mut request = Request {
            buf: Vec::with_capacity(64),
            last: 0,
        };
        request.frame(UNFRAGMENTED, &[0; REQUEST_FIELDS]);
        request.buf.extend(std::iter::repeat_n(0, fields));
        request.set_length();
        request.buf[HEADER..HEADER + 4].copy_from_slice(&kind.to_le_bytes());
        request.partition(-1)
    }

    fn frame(&mut self, flags: u16, content: &[u8]) {
        self.last = self.buf.len();
        let length = (HEADER + content.len()) as i32;
        self.buf.extend_from_slice(&length.to_le_bytes());
        self.buf.extend_from_slice(&flags.to_le_bytes());
        self.buf.extend_from_slice(content);
    }

    fn set_length(&mut self) {
        let length = (self.buf.len() - self.last) as i32;
        self.buf[self.last..self.last + 4].copy_from_slice(&length.to_le_bytes());
    }

    /// The partition the request is about (-1 for none).
    pub fn partition(mut self, partition: i32) -> Request {
        let at = HEADER + 12;
        self.buf[at..at + 4].copy_from_slice(&partition.to_le_bytes());
        self
    }

    /// Writes an `i64` field at `at` of the first frame's fields.
    pub fn i64(mut self, at: usize, value: i64) -> Request {
        let at = HEADER + REQUEST_FIELDS + at;
        self.buf[at..at + 8].copy_from_slice(&value.to_le_bytes());
        self
    }

    /// Writes a byte field at `at` of the first frame's fields.
    pub fn u8(mut self, at: usize, value: u8) -> Request {
        self.buf[HEADER + REQUEST_FIELDS + at] = value;
        self
    }

    /// Writes a UUID field (17 bytes) at `at` of the first frame's fields.
    pub fn uuid(mut self, at: usize, value: u128) -> Request {
        let at = HEADER + REQUEST_FIELDS + at;
        self.buf[at] = 0;
        self.buf[at + 1..at + 9].copy_from_slice(&((value >> 64) as u64).to_le_bytes());
        self.buf[at + 9..at + 17].copy_from_slice(&(value as u64).to_le_bytes());
        self
    }

    /// A field of bytes (serialized data, a string's UTF-8).
    pub fn bytes(mut self, bytes: &[u8]) -> Request {
        self.frame(0, bytes);
        self
    }

    /// A string field.
    pub fn string(self, s: &str) -> Request {
        self.bytes(s.as_bytes())
    }

    /// A null field.
    pub fn null(mut self) -> Request {
        self.frame(NULL, &[]);
        self
    }

    /// An empty list.
    pub fn empty_list(mut self) -> Request {
        self.frame(BEGIN, &[]);
        self.frame(END, &[]);
        self
    }

    /// Asks the backups to acknowledge the request to the client
    /// ([`BACKUP_AWARE`]).
    pub fn backup_aware(mut self) -> Request {
        let old = u16::from_le_bytes([self.buf[4], self.buf[5]]);
        self.buf[4..6].copy_from_slice(&(old | BACKUP_AWARE).to_le_bytes());
        self
    }

    /// Whether the backups acknowledge it to the client.
    pub fn is_backup_aware(&self) -> bool {
        u16::from_le_bytes([self.buf[4], self.buf[5]]) & BACKUP_AWARE != 0
    }

    /// The bytes to send, with this correlation id; the last frame final.
    pub fn finish(mut self, correlation: i64) -> Vec<u8> {
        let at = HEADER + 4;
        self.buf[at..at + 8].copy_from_slice(&correlation.to_le_bytes());
        let flags = self.last + 4;
        let old = u16::from_le_bytes([self.buf[flags], self.buf[flags + 1]]);
        self.buf[flags..flags + 2].copy_from_slice(&(old | FINAL).to_le_bytes());
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request reads back as a message with its fields.
    #[test]
    fn a_request_reads_back() {
        let bytes = Request::new(0x0102, 9)
            .partition(7)
            .i64(0, -5)
            .u8(8, 3)
            .string("name")
            .null()
            .bytes(&[1, 2, 3])
            .finish(42);
        let (message, used) = Message::parse(&bytes).unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(message.kind(), Ok(0x0102));
        assert_eq!(message.correlation(), Ok(42));
        let mut r = message.reader();
        let fields = r.fields().unwrap();
        assert_eq!(fields.i32(12), Ok(7));
        assert_eq!(fields.i64(REQUEST_FIELDS), Ok(-5));
        assert_eq!(fields.u8(REQUEST_FIELDS + 8), Ok(3));
        assert_eq!(r.string().unwrap(), "name");
        assert_eq!(r.nullable(|r| r.string()), Ok(None));
        assert_eq!(r.bytes(), Ok(&[1, 2, 3][..]));
        assert!(r.bytes().is_err(), "past the end");
    }

    /// Lengths below the header, messages in fragments or cut short are
    /// typed errors.
    #[test]
    fn bad_frames_are_refused() {
        let good = Request::new(1, 0).finish(1);
        for cut in 0..good.len() {
            assert_eq!(Message::parse(&good[..cut]), Err(Malformed::Truncated));
        }
        let mut short = good.clone();
        short[..4].copy_from_slice(&5_i32.to_le_bytes());
        assert_eq!(Message::parse(&short), Err(Malformed::Short(5)));
        let mut fragment = good.clone();
        fragment[4..6].copy_from_slice(&FINAL.to_le_bytes());
        assert_eq!(Message::parse(&fragment), Err(Malformed::Fragmented));
        let mut huge = good;
        huge[..4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert_eq!(Message::parse(&huge), Err(Malformed::TooLong));
    }
}
