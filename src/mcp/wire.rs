//! The stdio writer's one correction of the SDK's wire format: an error response always carries
//! an `id`.
//!
//! JSON-RPC 2.0 requires every response to have an `id` — `null` when the request's could not
//! be determined (a line that is JSON but no request). The SDK's stdio transport answers such a
//! line with `{"jsonrpc":"2.0","error":{…}}`, leaving `id` out, and a strict client cannot
//! parse that: the official Python SDK reports the line as unparsable instead of as the
//! Invalid Request error it is. [`NullIdWriter`] sits between the transport and stdout and
//! writes those lines as `{"jsonrpc":"2.0","id":null,"error":{…}}`; every other byte passes
//! through unchanged and unbuffered (a line is recognised by its first bytes, so a large
//! result is never held in memory twice).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::AsyncWrite;

/// How the SDK begins an error response without an id (its field order is fixed: `jsonrpc`,
/// then `id` when there is one, then `error`).
const NO_ID: &[u8] = br#"{"jsonrpc":"2.0","error":"#;
/// What such a line begins with once corrected.
const NULL_ID: &[u8] = br#"{"jsonrpc":"2.0","id":null,"error":"#;

/// Where the writer is in the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// The line's first bytes, all matching [`NO_ID`] so far, are held in `head`.
    Head,
    /// The line's start has been decided; the rest of it passes through.
    Rest,
}

/// An [`AsyncWrite`] that gives id-less error responses `"id":null` (see the module docs).
pub struct NullIdWriter<W> {
    inner: W,
    line: Line,
    /// The current line's first bytes, while they could still be [`NO_ID`].
    head: Vec<u8>,
    /// Bytes owed to `inner` before anything else: a decided head, corrected or not.
    owed: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> NullIdWriter<W> {
    /// Wraps `inner` (stdout), at the start of a line.
    pub fn new(inner: W) -> NullIdWriter<W> {
        NullIdWriter {
            inner,
            line: Line::Head,
            head: Vec::with_capacity(NO_ID.len()),
            owed: Vec::new(),
        }
    }

    /// Writes what is owed to `inner`; ready once nothing is.
    fn poll_owed(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.owed.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.owed))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.owed.drain(..n);
        }
        Poll::Ready(Ok(()))
    }

    /// The head is decided: corrected when it is the whole of [`NO_ID`], else as it came.
    fn decide(&mut self) {
        if self.head == NO_ID {
            self.owed.extend_from_slice(NULL_ID);
        } else {
            self.owed.extend_from_slice(&self.head);
        }
        self.head.clear();
        self.line = Line::Rest;
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for NullIdWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_owed(cx))?;
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        if this.line == Line::Head {
            let mut taken = 0;
            for &b in buf {
                if this.head.len() == NO_ID.len() || NO_ID[this.head.len()] != b {
                    break;
                }
                this.head.push(b);
                taken += 1;
            }
            if this.head.len() == NO_ID.len() || taken < buf.len() {
                this.decide();
            }
            if taken > 0 {
                return Poll::Ready(Ok(taken));
            }
            // This write's first byte ends the head: what it held goes out first, then the
            // rest of the line passes through below.
            ready!(this.poll_owed(cx))?;
        }
        let end = buf
            .iter()
            .position(|&b| b == b'\n')
            .map_or(buf.len(), |i| i + 1);
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &buf[..end]))?;
        if n == end && buf[end - 1] == b'\n' {
            this.line = Line::Head;
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.head.is_empty() {
            // A flush in the middle of a line's first bytes: they go out as they are.
            this.decide();
        }
        ready!(this.poll_owed(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// Writes `input` in pieces of `step` bytes and returns what came out.
    fn through(input: &[u8], step: usize) -> Vec<u8> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut w = NullIdWriter::new(Vec::new());
            for piece in input.chunks(step) {
                w.write_all(piece).await.unwrap();
            }
            w.flush().await.unwrap();
            w.inner
        })
    }

    #[test]
    fn an_error_without_id_gets_a_null_id_and_everything_else_passes_unchanged() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"e","error":{"code":-32601,"message":"no"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","err"#,
            "\n",
        );
        let want = concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"e","error":{"code":-32601,"message":"no"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","err"#,
            "\n",
        );
        for step in [1, 2, 3, 7, 24, 25, 26, 100, input.len()] {
            assert_eq!(
                String::from_utf8(through(input.as_bytes(), step)).unwrap(),
                want,
                "written {step} bytes at a time"
            );
        }
    }

    #[test]
    fn a_result_that_mentions_the_pattern_inside_a_line_is_untouched() {
        let input =
            br#"{"jsonrpc":"2.0","id":2,"result":{"text":"{\"jsonrpc\":\"2.0\",\"error\":"}}
"#;
        for step in [1, 5, input.len()] {
            assert_eq!(through(input, step), input.to_vec());
        }
    }
}
