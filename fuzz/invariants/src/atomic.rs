//! `atomic_write`: edits through the file-system seam with a fault at any call (DISK-1, DISK-5,
//! SESSION-3).

use crate::depth::Ending;
use crate::edit_case::EditSpec;
use crate::framing::{self, Writer};
use crate::hard_parts::FileForm;
use crate::model::{self, Outcome};
use crate::model_codec::{self, ModelEncoding};
use crate::sandbox::Sandbox;
use crate::{ensure, Check, EditCase};
use arbitrary::{Arbitrary, Result, Unstructured};
use editref::disk::{Fault, FaultFs, Fs, Op, RealFs};
use editref::error::Code;
use editref::{Config, Session, ToolError};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tool call under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicTool {
    /// Read, then Edit of an existing file.
    Edit,
    /// Read, then a one-edit MultiEdit of an existing file.
    MultiEdit,
    /// Read, then Write over an existing file.
    Write,
    /// Edit with an empty `old_string` creating a file in new directories.
    EditCreate,
    /// Write creating a file in new directories.
    WriteCreate,
}

impl AtomicTool {
    const ALL: [AtomicTool; 5] = [
        AtomicTool::Edit,
        AtomicTool::MultiEdit,
        AtomicTool::Write,
        AtomicTool::EditCreate,
        AtomicTool::WriteCreate,
    ];

    fn read(u: &mut Unstructured<'_>) -> Result<AtomicTool> {
        Ok(AtomicTool::ALL[usize::from(framing::byte(u)?) % AtomicTool::ALL.len()])
    }

    fn tag(self) -> u8 {
        AtomicTool::ALL.iter().position(|&t| t == self).unwrap_or(0) as u8
    }

    fn creates(self) -> bool {
        matches!(self, AtomicTool::EditCreate | AtomicTool::WriteCreate)
    }
}

/// OS errors the fault can carry.
const ERRNOS: [i32; 14] = [
    libc::ENOSPC,
    libc::EIO,
    libc::EACCES,
    libc::EPERM,
    libc::EEXIST,
    libc::ENOENT,
    libc::EXDEV,
    libc::EINTR,
    libc::EROFS,
    libc::EAGAIN,
    libc::ENOTDIR,
    libc::EISDIR,
    libc::ELOOP,
    libc::ENAMETOOLONG,
];

/// The fault injected at the chosen call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultChoice(pub Fault);

impl FaultChoice {
    fn read(u: &mut Unstructured<'_>) -> Result<FaultChoice> {
        let b = usize::from(framing::byte(u)?) % (ERRNOS.len() + 2);
        Ok(FaultChoice(match b {
            b if b < ERRNOS.len() => Fault::Errno(ERRNOS[b]),
            b if b == ERRNOS.len() => Fault::ShortWrite,
            _ => Fault::Crash,
        }))
    }

    fn tag(self) -> u8 {
        match self.0 {
            Fault::Errno(n) => ERRNOS.iter().position(|&e| e == n).unwrap_or(0) as u8,
            Fault::ShortWrite => ERRNOS.len() as u8,
            Fault::Crash => ERRNOS.len() as u8 + 1,
        }
    }
}

/// Input of `atomic_write`.
///
/// Framing: tool byte, fault byte, position u16 (taken modulo the number of file-system calls
/// of a clean run), flags byte (bit 0: go through a symlink; bit 1: mode 0755 instead of 0644),
/// then the file as `edit_vs_model` builds it (form byte, body blob) and one [`EditSpec`]: its
/// `old_string` mostly drawn from the file, its `new_string` also Write's `content`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicCase {
    /// The call under test.
    pub tool: AtomicTool,
    /// The fault.
    pub fault: FaultChoice,
    /// Which call of the clean run fails.
    pub position: u16,
    /// Variations (see the framing).
    pub flags: u8,
    /// How the file bytes are made (unused by the creating tools).
    pub form: FileForm,
    /// The file body (see [`FileForm`]).
    pub body: Vec<u8>,
    /// The edit; Write sends its `new_string` as `content`.
    pub edit: EditSpec,
}

impl<'a> Arbitrary<'a> for AtomicCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<AtomicCase> {
        Ok(AtomicCase {
            tool: AtomicTool::read(u)?,
            fault: FaultChoice::read(u)?,
            position: framing::u16_le(u)?,
            flags: framing::byte(u)?,
            form: FileForm::read(u)?,
            body: framing::blob(u)?,
            edit: EditSpec::arbitrary(u)?,
        })
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> Result<AtomicCase> {
        AtomicCase::arbitrary(&mut u)
    }
}

impl AtomicCase {
    /// The input bytes that decode to this case (seed writing).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut w = Writer::new();
        w.byte(self.tool.tag()).byte(self.fault.tag());
        w.u16_le(self.position).byte(self.flags);
        w.byte(self.form.tag());
        w.blob(&self.body)?;
        self.edit.write(&mut w)?;
        Some(w.finish())
    }

    fn via_symlink(&self) -> bool {
        self.flags & 1 != 0 && !self.tool.creates()
    }

    fn mode(&self) -> u32 {
        if self.flags & 2 != 0 {
            0o755
        } else {
            0o644
        }
    }

    /// The path the tools are given, relative to the sandbox.
    fn given(&self) -> &'static str {
        if self.tool.creates() {
            "new/sub/f.txt"
        } else if self.via_symlink() {
            "link.txt"
        } else {
            "f.txt"
        }
    }

    /// The file that ends up holding the bytes.
    fn real(&self) -> &'static str {
        if self.tool.creates() {
            "new/sub/f.txt"
        } else {
            "f.txt"
        }
    }

    /// The file's bytes before the call, as `edit_vs_model` builds them.
    fn file_bytes(&self) -> Vec<u8> {
        EditCase {
            form: self.form,
            body: self.body.clone(),
            edits: vec![self.edit.clone()],
        }
        .file_bytes()
    }
}

/// The strings of the call, drawn from the file's text.
struct Call {
    old: String,
    new: String,
    replace_all: bool,
}

/// What the model says the clean call must do.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expect {
    /// Succeed and leave exactly these bytes.
    Bytes(Vec<u8>),
    /// Be refused with this code, changing nothing.
    Refused(Code),
    /// A repair may apply, which the model does not decide.
    Undecided,
}

/// The call's strings and the model's verdict, from the spec (EDIT-1, WRITE-1..3, D11, D14,
/// D17): the model decodes the file with its own codec and runs the edit itself.
fn expect(case: &AtomicCase, file: &[u8]) -> std::result::Result<(Call, Expect), String> {
    let decoded = if case.tool.creates() {
        None
    } else {
        crate::edit::decode_both(file)?
    };
    let (stored, encoding) = match &decoded {
        Some((_, stored, enc)) => (stored.clone(), *enc),
        None => (
            String::from_utf8_lossy(file).into_owned(),
            ModelEncoding::Utf8 { bom: false },
        ),
    };
    let m = case.edit.strings(&stored, encoding);
    let call = Call {
        old: m.old.clone(),
        new: m.new.clone(),
        replace_all: m.replace_all,
    };
    let lf = |s: &str| s.replace("\r\n", "\n");
    let verdict = match (case.tool, &decoded) {
        (AtomicTool::WriteCreate, _) => Expect::Bytes(call.new.as_bytes().to_vec()),
        (AtomicTool::EditCreate, _) if call.new.is_empty() => Expect::Refused(Code::NoChange),
        (AtomicTool::EditCreate, _) => Expect::Bytes(
            lf(&call.new)
                .replace('\n', model::dominant_of(&call.new))
                .into_bytes(),
        ),
        // Read refused the file, so no read entry: not_read (EDIT-1 step 7, WRITE-2); for an
        // edit, no_change (step 2) comes first.
        (AtomicTool::Write, None) => Expect::Refused(Code::NotRead),
        (_, None) if lf(&call.old) == lf(&call.new) => Expect::Refused(Code::NoChange),
        (_, None) => Expect::Refused(Code::NotRead),
        (AtomicTool::Write, Some((_, _, enc))) => match model_codec::encode(&call.new, *enc) {
            Ok(bytes) => Expect::Bytes(bytes),
            Err(_) => Expect::Refused(Code::Encoding),
        },
        (_, Some((_, stored, enc))) => match model::run_tool(stored, *enc, &[m]) {
            Outcome::Bytes(bytes, _) => Expect::Bytes(bytes),
            Outcome::Error { code, .. } => Expect::Refused(code),
            Outcome::Unrepresentable(_) => Expect::Refused(Code::Encoding),
            Outcome::OutOfScope => Expect::Undecided,
        },
    };
    Ok((call, verdict))
}

fn setup(dir: &Path, case: &AtomicCase) -> std::result::Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    if case.tool.creates() {
        return Ok(());
    }
    let f = dir.join("f.txt");
    std::fs::write(&f, case.file_bytes()).map_err(|e| format!("setup: {e}"))?;
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(case.mode()))
        .map_err(|e| format!("setup: {e}"))?;
    if case.via_symlink() {
        std::os::unix::fs::symlink("f.txt", dir.join("link.txt"))
            .map_err(|e| format!("setup: {e}"))?;
    }
    Ok(())
}

/// Content and permission bits of the real target, or `None` when it does not exist.
type State = Option<(Vec<u8>, u32)>;

fn state(dir: &Path, case: &AtomicCase) -> std::result::Result<State, String> {
    use std::os::unix::fs::PermissionsExt;
    let p: PathBuf = dir.join(case.real());
    match std::fs::read(&p) {
        Ok(bytes) => {
            let mode = std::fs::metadata(&p)
                .map_err(|e| format!("stat: {e}"))?
                .permissions()
                .mode()
                & 0o7777;
            Ok(Some((bytes, mode)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read the target back: {e}")),
    }
}

fn run_tool(
    dir: &Path,
    fs: Arc<dyn Fs>,
    case: &AtomicCase,
    call: &Call,
) -> std::result::Result<Value, ToolError> {
    let config = Config::new(dir).with_root(dir);
    let session = Session::with_fs(config, fs);
    let path = case.given();
    if !case.tool.creates() {
        // A failed Read leaves no read entry; the write below is then refused (not_read).
        let _ = session.call("Read", &json!({"file_path": path}));
    }
    let (old, new, all) = (&call.old, &call.new, call.replace_all);
    match case.tool {
        AtomicTool::Edit => session.call(
            "Edit",
            &json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": all}),
        ),
        AtomicTool::MultiEdit => session.call(
            "MultiEdit",
            &json!({"file_path": path,
                    "edits": [{"old_string": old, "new_string": new, "replace_all": all}]}),
        ),
        AtomicTool::Write | AtomicTool::WriteCreate => {
            session.call("Write", &json!({"file_path": path, "content": new}))
        }
        AtomicTool::EditCreate => session.call(
            "Edit",
            &json!({"file_path": path, "old_string": "", "new_string": new}),
        ),
    }
}

fn describe(r: &std::result::Result<Value, ToolError>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("{} ({})", e.code.as_str(), e.message),
    }
}

/// Where an `atomic_write` input ended. The real check is a run whose clean call succeeds:
/// only then can a fault leave a mix of old and new bytes, so only then does "old or new"
/// say more than "unchanged".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicEnd {
    /// The clean call was refused with this code; the faulty run can only leave the old bytes.
    CleanRefused(Code),
    /// The clean call succeeded, and the faulty run was checked against old and new bytes.
    CleanSucceeded,
}

impl AtomicEnd {
    /// The ending as the depth table counts it.
    pub fn ending(self) -> Ending {
        match self {
            AtomicEnd::CleanRefused(c) => Ending::shallow(format!("refused:{}", c.as_str())),
            AtomicEnd::CleanSucceeded => Ending::deep("clean_call_succeeded"),
        }
    }
}

/// The clean run against the model: success exactly when the model expects bytes, and then
/// the model's bytes with the file's mode kept (DISK-1); a refusal with the model's code.
fn check_expected(
    case: &AtomicCase,
    expected: &Expect,
    clean: &std::result::Result<Value, ToolError>,
    old_state: &State,
    new_state: &State,
) -> Check {
    match (expected, clean) {
        (Expect::Undecided, _) => {}
        (Expect::Bytes(want), Ok(_)) => {
            let got = new_state.as_ref().map(|(b, _)| b);
            ensure!(
                got == Some(want),
                "clean {:?}: file holds {:?}, model says {:?}",
                case.tool,
                got.map(|b| String::from_utf8_lossy(b).into_owned()),
                String::from_utf8_lossy(want)
            );
            if let (Some((_, old_mode)), Some((_, new_mode))) = (old_state, new_state) {
                ensure!(
                    old_mode == new_mode,
                    "mode {old_mode:o} became {new_mode:o}"
                );
            }
        }
        (Expect::Refused(code), Err(e)) => ensure!(
            e.code == *code,
            "clean {:?} refused with {} ({}), model says {}",
            case.tool,
            e.code.as_str(),
            e.message,
            code.as_str()
        ),
        (want, got) => {
            return Err(format!(
                "clean {:?}: {}, model says {want:?}",
                case.tool,
                describe(got)
            ))
        }
    }
    Ok(())
}

/// Runs the call once cleanly (recording every file-system call), then again from the same
/// starting state with the fault injected at call number `position` (modulo the count), and
/// checks: the target holds exactly the old or the new bytes (and mode); success means new,
/// failure means old; a symlink stays a symlink; no temp file survives unless the fault was a
/// simulated crash; and when the file was left old, a clean retry succeeds despite any residue.
pub fn atomic_write(case: &AtomicCase) -> Result<AtomicEnd, String> {
    let (call, expected) = expect(case, &case.file_bytes())?;
    let sandbox = Sandbox::new()?;
    let dir = sandbox.path();
    setup(dir, case)?;
    let old_state = state(dir, case)?;
    let clean = FaultFs::new(Arc::new(RealFs));
    let clean_result = run_tool(dir, Arc::new(clean.clone()), case, &call);
    let new_state = state(dir, case)?;
    // From here on "the new bytes" are the clean run's, which equal the model's whenever the
    // model decides the call.
    check_expected(case, &expected, &clean_result, &old_state, &new_state)?;
    let ops = clean.log();
    ensure!(
        sandbox.temp_files().is_empty(),
        "a clean run left temp files: {:?}",
        sandbox.temp_files()
    );
    if clean_result.is_err() {
        ensure!(
            new_state == old_state,
            "a refused call changed the file: {}",
            describe(&clean_result)
        );
    }
    let end = match &clean_result {
        Ok(_) => AtomicEnd::CleanSucceeded,
        Err(e) => AtomicEnd::CleanRefused(e.code),
    };
    if ops.is_empty() {
        return Ok(end);
    }

    sandbox.reset()?;
    setup(dir, case)?;
    let k = usize::from(case.position) % ops.len();
    let op: Op = ops[k];
    let nth = ops[..=k].iter().filter(|&&o| o == op).count() as u64;
    let fault = case.fault.0;
    let fs = FaultFs::new(Arc::new(RealFs)).fail(op, nth, fault);
    let result = run_tool(dir, Arc::new(fs.clone()), case, &call);
    let now = state(dir, case)?;
    let at = format!("{fault:?} at {op:?} call {nth} (call {k} of {})", ops.len());
    ensure!(
        now == old_state || now == new_state,
        "{at}: the file holds neither the old nor the new bytes"
    );
    match &result {
        Ok(_) => ensure!(
            clean_result.is_ok() && now == new_state,
            "{at}: the call succeeded but the file does not hold the new bytes"
        ),
        Err(e) => ensure!(
            now == old_state,
            "{at}: the call failed ({}) but the file changed",
            e.code.as_str()
        ),
    }
    if case.via_symlink() {
        let link = std::fs::symlink_metadata(dir.join("link.txt"))
            .map_err(|e| format!("{at}: the link is gone: {e}"))?;
        ensure!(
            link.file_type().is_symlink(),
            "{at}: the symlink was replaced by a regular file"
        );
    }
    let residue = sandbox.temp_files();
    ensure!(
        residue.is_empty() || fs.crashed(),
        "{at}: temp files survive without a crash: {residue:?} (result: {})",
        describe(&result)
    );

    if now == old_state && clean_result.is_ok() {
        let retry = run_tool(dir, Arc::new(RealFs), case, &call);
        ensure!(
            retry.is_ok(),
            "{at}: the file was left intact but a clean retry failed: {}",
            describe(&retry)
        );
        ensure!(
            state(dir, case)? == new_state,
            "{at}: the retry did not write the new bytes"
        );
        ensure!(
            sandbox.temp_files() == residue,
            "{at}: the retry left temp files or read back old ones"
        );
    }
    Ok(end)
}
