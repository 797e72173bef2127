"""The inputs of the benchmark: deterministic pseudo-random source-like text, generated into
the work directory once and reused by later runs (nothing generated is committed), and the
strings the cases look for and write."""
import json
import os
import random
import sys

GEN_VERSION = "1"
MB = 1024 * 1024
NEEDLE = "    let needle_unique_target = 41;"
OLD = "needle_unique_target = 41"
NEW = "needle_renamed_target = 42"
# Not found: the needle with its spacing changed, so MATCH-6 finds a closest region.
OLD_MISSING = "let  needle_unique_target = 41 ;"
TOKEN = "TOKEN_ALPHA"
TOKEN_NEW = "TOKEN_OMEGA"
TOKEN_HITS = 100_000

IDENTS = ["alpha", "beta", "gamma", "delta", "value", "count", "index", "buffer", "reader",
          "writer", "config", "state", "node", "edge", "token_list", "parser", "result",
          "offset", "length", "cursor"]
FUNCS = ["compute", "parse", "render", "update", "load", "store", "apply", "merge", "split",
         "check"]
WORDS = ["the", "value", "is", "kept", "for", "later", "use", "when", "a", "line", "ends",
         "café", "résumé", "naïve", "→", "returns", "none", "update", "all", "fields"]


def source_line(r):
    """One line of Rust-like source; about 30 bytes on average, some non-ASCII."""
    ind = " " * (4 * r.randrange(4))
    k = r.randrange(8)
    a, b = r.choice(IDENTS), r.choice(IDENTS)
    n = r.randrange(1000)
    words = lambda lo, hi: " ".join(r.choice(WORDS) for _ in range(r.randrange(lo, hi)))
    return [
        f"{ind}let {a}_{n} = {r.choice(FUNCS)}({b}, {r.randrange(100)});",
        f"{ind}// {words(3, 9)}",
        f"{ind}if {a}.{b}() > {n} {{",
        f"{ind}}}",
        f"{ind}return {a}.{r.choice(FUNCS)}_{b}({n});",
        f"{ind}\"{words(2, 6)}\",",
        "",
        f"{ind}{a}[{n}] = {b}_{r.randrange(50)} + {r.randrange(9)};",
    ][k]


def source_lines(size, seed):
    """About `size` bytes of source-like lines: a pool of 20,000 random lines, drawn at random."""
    r = random.Random(seed)
    pool = [source_line(r) for _ in range(20_000)]
    avg = sum(len(l.encode()) + 1 for l in pool) / len(pool)
    return r.choices(pool, k=max(1, int(size / avg)))


def with_needle(lines):
    lines = list(lines)
    lines.insert(len(lines) // 2, NEEDLE)
    return lines


def with_tokens(lines, hits):
    """Puts TOKEN on `hits` evenly spaced lines."""
    lines = list(lines)
    step = len(lines) / hits
    for j in range(hits):
        i = int(j * step)
        lines[i] = f"    use_token({TOKEN}, {j % 1000});"
    return lines


MARKS = 1_000


def mark_old(j):
    return f"marker_{j:04d}_unique = {j};"


def mark_new(j):
    return f"marker_{j:04d}_renamed = {j};"


def with_marks(lines, n):
    """Puts n unique marker lines, evenly spaced (the edits of the MultiEdit case)."""
    lines = list(lines)
    step = len(lines) / n
    for j in range(n):
        lines[int(j * step)] = f"    let {mark_old(j)}"
    return lines


def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def generate(work):
    """Writes every missing input (all of them again when the generator changed); returns
    {name: path}."""
    files = {
        "lf100": "src-lf-100M.txt",
        "crlf100": "src-crlf-100M.txt",
        "u16_100": "src-utf16le-100M.txt",
        "lf10": "src-lf-10M.txt",
        "all10": "tokens-10M.txt",
        "lf1k": "src-lf-1K.txt",
        "marks10": "marks-10M.txt",
        "edits": "edits-1000.json",
    }
    paths = {k: os.path.join(work, v) for k, v in files.items()}
    stamp = os.path.join(work, "inputs.version")
    fresh = os.path.exists(stamp) and open(stamp).read() == GEN_VERSION
    missing = {k for k, p in paths.items() if not fresh or not os.path.exists(p)}
    if not missing:
        return paths
    os.makedirs(work, exist_ok=True)
    print("generating inputs (once) ...", file=sys.stderr)
    if missing & {"lf100", "crlf100", "u16_100"}:
        text = "\n".join(with_needle(source_lines(100 * MB, 1))) + "\n"
        write_bytes(paths["lf100"], text.encode())
        write_bytes(paths["crlf100"], text.replace("\n", "\r\n").encode())
        write_bytes(paths["u16_100"], b"\xff\xfe" + text.encode("utf-16-le"))
        del text
    if "lf10" in missing:
        text = "\n".join(with_needle(source_lines(10 * MB, 2))) + "\n"
        write_bytes(paths["lf10"], text.encode())
    if "all10" in missing:
        text = "\n".join(with_tokens(source_lines(10 * MB, 3), TOKEN_HITS)) + "\n"
        assert text.count(TOKEN) == TOKEN_HITS
        write_bytes(paths["all10"], text.encode())
    if "lf1k" in missing:
        text = "\n".join(with_needle(source_lines(1000, 4))) + "\n"
        write_bytes(paths["lf1k"], text.encode())
    if missing & {"marks10", "edits"}:
        text = "\n".join(with_marks(source_lines(10 * MB, 5), MARKS)) + "\n"
        assert all(text.count(mark_old(j)) == 1 for j in (0, MARKS // 2, MARKS - 1))
        write_bytes(paths["marks10"], text.encode())
        edits = [{"old_string": mark_old(j), "new_string": mark_new(j)} for j in range(MARKS)]
        write_bytes(paths["edits"], json.dumps(edits).encode())
    with open(stamp, "w") as f:
        f.write(GEN_VERSION)
    return paths
