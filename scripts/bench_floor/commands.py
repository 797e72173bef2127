"""One command of a case: a whole process (`Cmd`) or one call to a running `editref serve`
(`ServeCmd`); how to prepare its file before each run, and what each run cost."""
import json
import os
import shutil
import statistics
import subprocess
import time

from .stats import quantile

class Cmd:
    """One command of a case: how to run it and how to prepare the file before each run."""

    # Working directory of every command: the scratch directory, whose undo journal editref
    # keeps in the state directory build_cases points XDG_STATE_HOME at, inside the work
    # directory, so a run leaves nothing in the home of whoever runs it.
    cwd = None

    def __init__(self, label, argv, src=None, dst=None, note="", expect=0, stdin=None):
        self.label, self.argv, self.src, self.dst = label, argv, src, dst
        self.note, self.expect, self.stdin = note, expect, stdin
        self.runs = []  # (wall s, cpu s, exit code)
        self.rss_kb = None

    def prepare(self):
        if self.src and self.dst:
            shutil.copyfile(self.src, self.dst)
            # Make sure nothing of an earlier run is left (a refused peer may leave a temp).
            d = os.path.dirname(self.dst)
            for name in os.listdir(d):
                if name.startswith("." + os.path.basename(self.dst) + "."):
                    os.remove(os.path.join(d, name))
        # Dirty pages of the preparation and of earlier runs (cp does not fsync) are written
        # back now, not during the timed run, where they would land on whichever command ran
        # next and swing its time by more than the differences measured here.
        os.sync()

    def stdin_file(self):
        return open(self.stdin, "rb") if self.stdin else subprocess.DEVNULL

    def run_once(self):
        self.prepare()
        stdin = self.stdin_file()
        t = time.perf_counter()
        p = subprocess.Popen(self.argv, stdin=stdin, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=self.cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        if self.stdin:
            stdin.close()
        code = os.waitstatus_to_exitcode(status)
        self.runs.append((wall, ru.ru_utime + ru.ru_stime, code))

    def measure_rss(self):
        """Peak RSS of one extra run under GNU time (its small fork keeps our own RSS out)."""
        if not os.path.exists("/usr/bin/time"):
            return
        self.prepare()
        stdin = self.stdin_file()
        p = subprocess.run(["/usr/bin/time", "-v"] + self.argv, stdin=stdin,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           cwd=self.cwd)
        if self.stdin:
            stdin.close()
        for line in p.stderr.splitlines():
            if "Maximum resident set size" in line:
                self.rss_kb = int(line.split(":")[1])

    def close(self):
        pass

    def walls(self):
        return [r[0] for r in self.runs]

    @property
    def wall(self):
        return statistics.median(self.walls())

    def spread(self):
        """(min, p90, max) of the wall times."""
        w = self.walls()
        return min(w), quantile(w, 0.9), max(w)

    @property
    def cpu(self):
        return statistics.median(r[1] for r in self.runs)

    @property
    def exit_codes(self):
        return sorted({r[2] for r in self.runs})

    def ok(self):
        return self.exit_codes == [self.expect]


class ServeCmd(Cmd):
    """One tool call to a long-running `editref serve` (adapter protocol v1), timed from the
    request line to the reply line. Before each timed call, untimed: a fresh case (session)
    in the directory of the file and a Read of the whole file, which an Edit requires."""

    def __init__(self, label, serve_argv, src, dst, tool, tool_input, note=""):
        super().__init__(label, serve_argv, src, dst, note)
        self.tool, self.tool_input = tool, tool_input
        self.proc = None
        self.seq = 0

    def send(self, obj):
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, obj):
        self.send(obj)
        return json.loads(self.proc.stdout.readline())

    def start(self):
        if self.proc is None:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, cwd=self.cwd)
            self.request({"type": "hello", "protocol": 1})

    def call(self, tool, tool_input):
        self.seq += 1
        return self.request({"type": "call", "seq": self.seq, "tool": tool,
                             "input": tool_input})

    def run_once(self):
        self.start()
        self.prepare()
        self.request({"type": "case_start", "id": "bench",
                      "sandbox": os.path.dirname(self.dst)})
        lines = sum(1 for _ in open(self.dst, "rb"))
        self.call("Read", {"file_path": self.dst, "limit": max(lines, 1)})
        self.seq += 1
        request = {"type": "call", "seq": self.seq, "tool": self.tool, "input": self.tool_input}
        c0 = self.proc_cpu()
        t = time.perf_counter()
        self.send(request)
        line = self.proc.stdout.readline()
        wall = time.perf_counter() - t
        cpu = self.proc_cpu() - c0
        reply = json.loads(line)
        self.request({"type": "case_end"})
        self.runs.append((wall, cpu, 0 if reply.get("ok") else 1))

    def proc_cpu(self):
        """The server's CPU time so far (user + system, in clock ticks of 10 ms)."""
        try:
            fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def measure_rss(self):
        """The server's peak RSS (VmHWM) after its calls: its whole life, not one call."""
        try:
            for line in open(f"/proc/{self.proc.pid}/status"):
                if line.startswith("VmHWM:"):
                    self.rss_kb = int(line.split()[1])
        except (OSError, AttributeError):
            pass

    def close(self):
        if self.proc:
            try:
                self.request({"type": "bye"})
            except (OSError, ValueError):
                pass
            self.proc.wait()
            self.proc = None
