#!/usr/bin/env python3
"""A stand-in Android device for eacu's tests: it speaks the DEVICE side of the ADB transport over
TCP (AOSP packages/modules/adb protocol.txt: CNXN, OPEN, OKAY, WRTE, CLSE; no AUTH, as AOSP's own
test_adb.py fake device; with --unauthorized it asks for AUTH and refuses every signature, as a
phone whose debugging prompt was not accepted), so the real adb server reaches it with `adb -P PORT connect
127.0.0.1:N`. Its screen is chat_app.py drawn on its own Xvfb: screencap captures that Xvfb
(Xvfb's -fbdir XWD file), `input` goes to it with xdotool, `uiautomator dump` is the app's widget tree.

Services: exec:CMD, shell:CMD, shell,v2,...:CMD (packets, and an interactive shell when CMD is
empty), sync: (STAT, RECV, SEND, LIST, QUIT). Shell commands: echo, true, false, getprop, wm
size|density, dumpsys input|input_method|window|display, grep [-m1] [-E], settings get|put, ime list|set, screencap
[-p], input tap|swipe|keyevent|keycombination|text, uiautomator dump, am start|force-stop|
broadcast, monkey -p, pm list packages, cat, rm, sleep, getevent -pl, sendevent (a touchscreen
at /dev/input/event2 whose axes run 0-4095, multi-touch protocol type B: see Phone.sendevent;
each touch going down is logged as "touch down X Y"). Every command is logged (--log), one line
each.

Faults, through files in --control DIR (read at each command): `touch` ("none": getevent -pl
lists no touchscreen and sendevent finds no node, as on an emulator without one; "denied": the
node is listed but sendevent cannot open it, as without group input), `rotation` (0-3: the screen and the
app turn, wm size stays), `black` (screencap all black: a FLAG_SECURE window), `idle_failures` (N:
the next N dumps print "ERROR: could not get idle state."), `format` (the pixel format raw
screencap announces: another than 1 makes eacu fall back to PNG), `drop` (the TCP connection is
cut at the next command), `stall` (a command's name: screencap, uiautomator, input or
screenrecord; the next such command takes the fault (the file is removed) and stalls with its
connection left open: screencap sends the first half of its image, uiautomator dump nothing,
input is carried out but never answered, screenrecord sends no picture; the service ends when
the host closes it (at most 120 s); logged as "stalled NAME" and "stall ended: WHY"). Each OPENed service is
logged as "OPEN service". Written from the protocol docs, not from eacu's client.

--costs phone (class Costs): it costs what a phone costs, as sleeps (screencap raw and PNG scaled
by the screen's pixels, each Java process, each native process (sendevent, getevent, sleep), uiautomator's idle wait and walk, every byte over a
link of --link MB/s, shared by the device's streams) and behaves like one: an input is drawn 50-300
ms after its command returns (a capture shows what is drawn), ADBKeyBoard binds 0.2-0.5 s after
`ime set` (`dumpsys input_method` shows mCurMethodId) and commits a broadcast only once bound and
while a text field has the focus (else the broadcast completes unheard). --sdk picks `dumpsys
input`'s format (SurfaceOrientation to SDK 32, InputDeviceOrientation: N on 33-34, RotationN from
35). Connections and streams are served concurrently (one lock on the app's pipe only).

App versions: the `app_version` control file, read when the app starts (at the stand-in's start, and
at `am start` or `monkey -p` after `am force-stop`), picks chat_app.py's version: v1 (the default) or
v2 (the healing test's next version: a row moved, the send button renamed).

--package PKG: the app's package (default com.example.chat; com.tencent.mm for the wechat
module's Android path: the app is laid out like WeChat's, see chat_app.py). Several stand-ins
(one process each, their own Xvfb, log and control folder) are several devices on one adb server.
"""
import argparse
import base64
import json
import os
import re
import random
import shlex
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

A_CNXN, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_AUTH = (
    0x4E584E43, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257, 0x48545541)
A_VERSION = 0x01000001
MAX_DATA = 256 * 1024
PKG = "com.example.chat"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
# KEYCODE -> what reaches the app: an xdotool key name, or an app command.
KEYS = {66: "Return", 67: "BackSpace", 112: "Delete", 61: "Tab", 62: "space", 19: "Up", 20: "Down",
        21: "Left", 22: "Right", 122: "Home", 123: "End", 111: "Escape"}
KEYS.update({7 + i: str(i) for i in range(10)})
KEYS.update({29 + i: chr(ord("a") + i) for i in range(26)})
APP_KEYS = {4: "back", 3: "home"}
# Programs that start a Java process (app_process) on a phone: each costs the process's start.
JAVA_PROGRAMS = ("input", "am", "monkey", "uiautomator")
# Native programs (toybox, toolbox): each costs a native process's start.
NATIVE_PROGRAMS = ("sendevent", "getevent", "sleep")
# The touchscreen's evdev node and its axis ranges (getevent -pl; not the screen's pixels, as on
# many phones), and linux/input-event-codes.h's numbers of what it reports.
TOUCH_NODE = "/dev/input/event2"
TOUCH_AXES = {"ABS_MT_SLOT": (0, 9), "ABS_MT_TOUCH_MAJOR": (0, 255), "ABS_MT_POSITION_X": (0, 4095),
              "ABS_MT_POSITION_Y": (0, 4095), "ABS_MT_TRACKING_ID": (0, 65535), "ABS_MT_PRESSURE": (0, 255)}
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
ABS_CODES = {0x2f: "ABS_MT_SLOT", 0x30: "ABS_MT_TOUCH_MAJOR", 0x35: "ABS_MT_POSITION_X", 0x36: "ABS_MT_POSITION_Y",
             0x39: "ABS_MT_TRACKING_ID", 0x3a: "ABS_MT_PRESSURE"}
BTN_TOUCH = 0x14a


class Costs:
    """What a phone's work costs, as sleeps (--costs phone; --costs none: all zero, the stand-in
    answers at once). The published figures (../shared/reference/adb.md), scaled by the screen's
    pixels where the work is per pixel:
    - raw `screencap`: 0.18 s at 1080x2400 on the device (AzurLaneAutoScript's screenshot
      benchmark, PR #3086; issue 38 puts it at a 1080x2400 frame), plus its bytes over the link;
    - `screencap -p`: 2.1 s at 1440x3120 (handsets.dev's benchmark: the phone's PNG encoder);
    - each new Java process (`input`, `am`, `monkey`, `uiautomator`): 0.3-0.7 s, drawn uniformly
      (uiautomator#132, scrcpy#231: a key event about 690 ms);
    - `uiautomator dump`: its process, then the idle wait of AOSP's DumpCommand.java
      (`waitForIdle(1000, 10000)`: 1 s without a screen change, at most 10 s, else "ERROR: could
      not get idle state."), then the walk of the tree: 0.3 s (dumps "one to several seconds",
      uiautomator2 #867, #1122);
    - the link: `link_mbs` MB/s for every byte the device sends (USB 2 about 35 MB/s, Wi-Fi adb
      about 5 MB/s: 10.4 MB in about 0.3 s and 2 s, reference/adb.md), one link per device: two
      streams at once share it.
    - an input is drawn 50-300 ms after its command (a frame or two of a busy app, issue 38 item
      4); a capture returns what is drawn then."""

    def __init__(self, kind, link_mbs, w, h):
        self.phone = kind == "phone"
        self.link_bps = link_mbs * 1e6
        self.pixels = w * h
        self.link_free_at = 0.0
        self.link_lock = threading.Lock()

    def raw_screencap(self):
        return 0.18 * self.pixels / (1080 * 2400) if self.phone else 0.0

    def png_screencap(self):
        return 2.1 * self.pixels / (1440 * 3120) if self.phone else 0.0

    def process(self):
        return random.uniform(0.3, 0.7) if self.phone else 0.0

    def native_process(self):
        """A native program (sendevent, getevent, sleep): its fork and exec, no Java VM. 5-20 ms is
        an estimate, not a published figure."""
        return random.uniform(0.005, 0.02) if self.phone else 0.0

    def dump_walk(self):
        return 0.3 if self.phone else 0.0

    def draw_delay(self):
        return random.uniform(0.05, 0.3) if self.phone else 0.0

    def send(self, n):
        """Sleeps while `n` bytes cross the link (after those of other streams queued before)."""
        if not self.phone:
            return
        with self.link_lock:
            start = max(time.monotonic(), self.link_free_at)
            self.link_free_at = start + n / self.link_bps
            until = self.link_free_at
        pause(until - time.monotonic())


class Stall(Exception):
    """The `stall` fault hit a command: `out` is what it would have printed (half of it is sent)."""

    def __init__(self, name, out):
        super().__init__(name)
        self.name, self.out = name, out


def pause(seconds):
    if seconds > 0:
        time.sleep(seconds)


class Phone:
    """The device's state: its app, display, files, settings and the command log."""

    def __init__(self, args):
        self.args = args
        self.w, self.h = args.width, args.height
        self.costs = Costs(args.costs, args.link, self.w, self.h)
        self.app_lock = threading.Lock()  # one request at a time on the app's pipe
        self.log_lock = threading.Lock()
        self.files = {}
        self.ime = LATIN_IME
        self.ime_bound_at = 0.0  # when the selected IME is bound to the focused field (monotonic)
        self.last_draw = time.monotonic()  # when the screen last changed (an input drawn)
        self.drawing = []  # inputs waiting to be drawn: (due, seq, action), in order
        self.draw_cv = threading.Condition()
        self.frame_seq = 0  # counts the screen's changes (drawn inputs, animation ticks, rotations)
        self.frame_cv = threading.Condition()
        self.recorders = []  # running screenrecords: (rotated, done) Events
        threading.Thread(target=self.draw_loop, daemon=True).start()
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None
        side = max(self.w, self.h)
        r, wfd = os.pipe()
        # -fbdir: the screen is also a memory-mapped XWD file there, read for each screencap.
        self.fbdir = tempfile.mkdtemp(prefix="standin-fb-")
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(wfd), "-screen", "0", f"{side}x{side}x24",
                                      "-fbdir", self.fbdir, "-nolisten", "tcp"], pass_fds=[wfd],
                                     stderr=subprocess.DEVNULL)
        os.close(wfd)
        num = b""
        while not num.endswith(b"\n"):
            c = os.read(r, 1)
            if not c:
                sys.exit("standin: Xvfb did not start")
            num += c
        os.close(r)
        self.display = ":" + num.decode().strip()
        self.env = dict(os.environ, DISPLAY=self.display)
        self.app = None
        self.start_app()
        self.rotation = 0
        self.touch_state = {"slot": 0}  # the touchscreen's slot 0 and BTN_TOUCH (sendevent)
        threading.Thread(target=self.animate_loop, daemon=True).start()

    def start_app(self):
        if self.app and self.app.poll() is None:
            return
        # The `app_version` control file (v1, v2) picks the version the app starts as.
        version = self.control("app_version") or "v1"
        self.app = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "chat_app.py"),
                                     str(self.w), str(self.h), PKG, version], env=self.env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.app_call({"cmd": "screen"})
        self.drawn()

    def drawn(self):
        """The screen changed: screenrecord encodes a frame."""
        self.last_draw = time.monotonic()
        if self.args.log_times:
            self.note("drawn")
        with self.frame_cv:
            self.frame_seq += 1
            self.frame_cv.notify_all()

    def animate_loop(self):
        """The `animate` fault (N frames/s): the app draws a ticking counter N times a second."""
        while True:
            rate = float(self.control("animate") or 0)
            if rate <= 0:
                time.sleep(0.1)
                continue
            t0 = time.monotonic()
            self.app_call({"cmd": "tick"})
            self.drawn()
            pause(1 / rate - (time.monotonic() - t0))

    def stop_app(self):
        if self.app and self.app.poll() is None:
            self.app.stdin.close()
            self.app.wait(10)
        self.app = None

    def app_call(self, req):
        with self.app_lock:
            if not self.app:
                return {}
            self.app.stdin.write(json.dumps(req) + "\n")
            self.app.stdin.flush()
            return json.loads(self.app.stdout.readline())

    def later(self, action):
        """Runs `action` (an input reaching the app) when the app draws it: at once with --costs
        none, else after Costs.draw_delay(), in the order the inputs came."""
        if not self.costs.phone:
            action()
            self.drawn()
            return
        with self.draw_cv:
            due = max([time.monotonic() + self.costs.draw_delay()] + [d for d, _, _ in self.drawing])
            self.drawing.append((due, len(self.drawing), action))
            self.draw_cv.notify_all()

    def draw_loop(self):
        while True:
            with self.draw_cv:
                while not self.drawing or self.drawing[0][0] > time.monotonic():
                    self.draw_cv.wait(self.drawing[0][0] - time.monotonic() if self.drawing else None)
                _, _, action = self.drawing.pop(0)
            try:
                action()
                self.app_call({"cmd": "screen"})  # drawn: the next capture shows it
            except Exception as e:  # a bug of the stand-in: say so on stderr
                print(f"standin: a late input: {e!r}", file=sys.stderr)
            self.drawn()

    def control(self, name):
        if not self.args.control:
            return None
        try:
            with open(os.path.join(self.args.control, name)) as f:
                return f.read().strip()
        except OSError:
            return None

    def take_control(self, name):
        """Decrements a counter file; True while it was above 0."""
        v = self.control(name)
        if not v or int(v) <= 0:
            return False
        with open(os.path.join(self.args.control, name), "w") as f:
            f.write(str(int(v) - 1))
        return True

    def screen_size(self):
        return (self.h, self.w) if self.rotation % 2 else (self.w, self.h)

    def apply_rotation(self):
        r = int(self.control("rotation") or 0) % 4
        if r != self.rotation:
            # The running screenrecords end first (their status sent), then the screen turns.
            with self.frame_cv:
                recorders = list(self.recorders)
                for rotated, _ in recorders:
                    rotated.set()
                self.frame_cv.notify_all()
            for _, done in recorders:
                done.wait(10)
            self.rotation = r
            w, h = self.screen_size()
            self.app_call({"cmd": "size", "w": w, "h": h})
            self.drawn()

    def xdotool(self, *words):
        subprocess.run(["xdotool", *words], env=self.env, check=True)

    # ---- screencap
    def bgrx(self):
        """The screen as drawn now: (w, h, pixels B, G, R, X row by row), from Xvfb's XWD file."""
        w, h = self.screen_size()
        if self.control("black") is not None:
            return w, h, bytes(w * h * 4)
        with open(os.path.join(self.fbdir, "Xvfb_screen0"), "rb") as f:
            xwd = f.read()
        head = struct.unpack(">25I", xwd[:100])
        header_size, ncolors, bpl, bpp = head[0], head[19], head[12], head[11]
        if bpp != 32 or head[7] != 0:
            raise RuntimeError(f"xwd: expected 32 bits per pixel LSB first, got {bpp}, byte order {head[7]}")
        pixels = memoryview(xwd)[header_size + 12 * ncolors:]
        return w, h, b"".join(pixels[y * bpl: y * bpl + w * 4] for y in range(h))

    def rgba(self):
        if not self.costs.phone:
            self.app_call({"cmd": "screen"})  # the app has drawn what it was asked before
        w, h, rows = self.bgrx()
        out = bytearray(len(rows))
        out[0::4], out[1::4], out[2::4] = rows[2::4], rows[1::4], rows[0::4]
        out[3::4] = b"\xff" * (w * h)
        return w, h, bytes(out)

    def screencap(self, png):
        # The frame grabbed at the start, then the device's work on it: the cost less what the
        # stand-in itself took (reading Xvfb's frame, zlib).
        t0 = time.monotonic()
        w, h, px = self.rgba()
        if png:
            data = png_bytes(w, h, px)
            pause(self.costs.png_screencap() - (time.monotonic() - t0))
            return data
        pause(self.costs.raw_screencap() - (time.monotonic() - t0))
        head = struct.pack("<III", w, h, int(self.control("format") or 1))
        if self.args.header == 16:
            head += struct.pack("<I", 0)  # colour space: unknown
        return head + px

    # ---- screenrecord
    def screenrecord(self, argv, write, closed, rotated):
        """`screenrecord --output-format=h264 [--size WxH] [--bit-rate N] [--time-limit S] -` as
        a phone's (AOSP frameworks/av cmds/screenrecord; its quirks as scrcpy's authors list them,
        reference/adb.md): the screen encoded to H.264 by FFmpeg (the `ffmpeg` program, libx264 at a
        constant quality capped by --bit-rate over a second, as a phone's VBR encoder)
        written to `write`; a frame only when the screen changed (with --first-frame start also
        one at the start); the video's sides rounded down to multiples of 16 (as hardware
        encoders need) with the screen fitted inside keeping its aspect ratio (black borders, as
        screenrecord's setDisplayProjection); output held about 100 ms (the phone's buffering); it
        ends after the time limit (default and most 180 s), or when the display rotates (a
        simplification: a phone's goes on with the turned screen fitted in). Faults: the control file
        `no_screenrecord` (not installed: answered by the shell as unknown), `stream_kill` (N: the
        next N streams die at their next frame, exit status 1). `rotated` (an Event): the display
        is about to turn, end now. Returns (stderr, exit status)."""
        size, bitrate, limit, fmt, target = None, 20_000_000, 180, "mp4", None
        i = 1
        try:
            while i < len(argv):
                a = argv[i]
                if a.startswith("--output-format="):
                    fmt = a.split("=", 1)[1]
                elif a in ("--output-format", "--size", "--bit-rate", "--time-limit"):
                    i += 1
                    v = argv[i]
                    if a == "--output-format":
                        fmt = v
                    elif a == "--size":
                        size = tuple(int(x) for x in v.split("x"))
                    elif a == "--bit-rate":
                        bitrate = int(float(v[:-1]) * 1e6) if v[-1] in "mM" else int(v)
                    else:
                        limit = int(v)
                elif a == "--verbose":
                    pass
                elif a.startswith("--"):
                    return f"Unrecognized option '{a}'\n".encode(), 2
                else:
                    target = a
                i += 1
        except (IndexError, ValueError) as e:
            return f"screenrecord: bad arguments ({e})\n".encode(), 2
        if fmt != "h264" or target != "-":
            return b"screenrecord (stand-in): only --output-format=h264 to stdout (-) is served\n", 2
        if not 1 <= limit <= 180:
            return f"Time limit {limit}s out of range [1,180]\n".encode(), 2
        sw, sh = self.screen_size()
        vw, vh = size or (sw, sh)
        vw, vh = vw - vw % 16, vh - vh % 16
        if vw <= 0 or vh <= 0:
            return f"Invalid size {vw}x{vh}\n".encode(), 2
        # setDisplayProjection: the screen scaled to fit, centred.
        aspect = sh / sw
        if vh > int(vw * aspect):
            ow, oh = vw, int(vw * aspect)
        else:
            ow, oh = int(vh / aspect), vh
        ffmpeg = subprocess.Popen(
            ["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr0", "-s", f"{sw}x{sh}",
             "-framerate", "60", "-i", "-", "-vf",
             f"scale={ow}:{oh},pad={vw}:{vh}:{(vw - ow) // 2}:{(vh - oh) // 2}:black,format=yuv420p",
             "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-threads", "1",
             "-x264-params", "sliced-threads=0:keyint=600", "-crf", "20", "-maxrate", str(bitrate),
             "-bufsize", str(bitrate), "-fps_mode", "passthrough",
             "-flush_packets", "1", "-f", "h264", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out_q = []  # (when read, bytes): held 100 ms, then sent
        out_cv = threading.Condition()
        done = [False]

        def reader():
            fd = ffmpeg.stdout.fileno()
            while True:
                data = os.read(fd, 1 << 20)
                # A picture's bytes come from ffmpeg in pieces (its 32 KB writes): gathered until a
                # 10 ms pause, so each encoded picture is written at once, as screenrecord does.
                while data and select.select([fd], [], [], 0.01)[0]:
                    more = os.read(fd, 1 << 20)
                    if not more:
                        break
                    data += more
                with out_cv:
                    if not data:
                        done[0] = True
                    else:
                        out_q.append((time.monotonic(), data))
                    out_cv.notify_all()
                if not data:
                    return

        def sender():
            while True:
                with out_cv:
                    out_cv.wait_for(lambda: out_q or done[0])
                    if not out_q:
                        return
                    t, data = out_q.pop(0)
                pause(t + 0.1 - time.monotonic())
                if not closed():
                    write(data)

        threads = [threading.Thread(target=reader, daemon=True), threading.Thread(target=sender, daemon=True)]
        for t in threads:
            t.start()
        t0, seq, frames, ending = time.monotonic(), None, 0, "the time limit"
        if self.args.first_frame == "change":
            seq = self.frame_seq
        try:
            while True:
                left = t0 + limit - time.monotonic()
                if left <= 0:
                    break
                if closed():
                    ending = "the host closed it"
                    break
                with self.frame_cv:
                    self.frame_cv.wait_for(lambda: self.frame_seq != seq or rotated.is_set(), timeout=min(left, 0.5))
                    changed = self.frame_seq != seq
                    seq = self.frame_seq
                if rotated.is_set():
                    # The stand-in's simplification: a phone's screenrecord goes on, the turned
                    # screen fitted in the same video; this one ends (status 0) before the turn
                    # (the turn waits for it: it ends at once, not at the next picture).
                    ending = "the display rotated"
                    break
                if not changed:
                    continue
                if self.control("drop") is not None:
                    raise ConnectionAbortedError("drop")
                if self.take_control("stream_kill"):
                    ending = "killed (stream_kill)"
                    ffmpeg.kill()
                    break
                self.app_call({"cmd": "screen"})  # drawn
                _, _, px = self.bgrx()
                ffmpeg.stdin.write(px)
                ffmpeg.stdin.flush()
                frames += 1
                if self.args.log_times:
                    self.note(f"screenrecord picture {frames} to the encoder")
        except (BrokenPipeError, OSError) as e:
            ending = f"the encoder failed ({e})"
        finally:
            try:
                ffmpeg.stdin.close()
            except OSError:
                pass
            for t in threads:
                t.join(10)
            ffmpeg.wait(10)
            self.note(f"screenrecord ended: {frames} frames, {ending}")
        if ending.startswith("killed"):
            return b"screenrecord: the encoder died\n", 1
        return b"", 0

    # ---- the shell
    def run_line(self, line, status):
        """Runs one sh command line; returns (stdout bytes, stderr bytes, exit status)."""
        line = line.replace("$?", str(status))
        lex = shlex.shlex(line, posix=True, punctuation_chars=";|&")
        lex.whitespace_split = True
        out, err, st = b"", b"", 0
        words, pipeline = [], []
        tokens = list(lex) + [";"]
        for t in tokens:
            if t in (";", "&&"):
                if words:
                    pipeline.append(words)
                if pipeline:
                    data = b""
                    for cmd in pipeline:
                        data, e, st = self.command(cmd, data)
                        err += e
                    out += data
                words, pipeline = [], []
                if t == "&&" and st != 0:
                    break
            elif t == "|":
                pipeline.append(words)
                words = []
            else:
                words.append(t)
        return out, err, st

    def note(self, line):
        if self.log:
            if self.args.log_times:
                line = f"{time.monotonic():.3f} {line}"
            with self.log_lock:
                self.log.write(line + "\n")
                self.log.flush()

    def command(self, argv, stdin):
        self.note(" ".join(argv))
        if self.control("drop") is not None:
            raise ConnectionAbortedError("drop")
        self.apply_rotation()
        black = self.control("black") is not None
        if black != getattr(self, "black", False):
            self.black = black  # a secure window came or went: the screen changed
            self.drawn()
        if argv and argv[0] in JAVA_PROGRAMS:
            pause(self.costs.process())
        if argv and argv[0] in NATIVE_PROGRAMS:
            pause(self.costs.native_process())
        stalls = bool(argv) and self.take_stall(argv[0])
        if stalls and argv[0] == "uiautomator":
            raise Stall(argv[0], b"")  # stalls while it dumps: nothing printed
        try:
            result = self.dispatch(argv, stdin)
        except (IndexError, ValueError) as e:
            return b"", f"{argv[0]}: bad arguments ({e})\n".encode(), 1
        if self.args.log_times and argv:
            self.note(f"done {argv[0]}")
        if stalls:
            raise Stall(argv[0], result[0])  # screencap half sent; input carried out, not answered
        return result

    def take_stall(self, name):
        """Whether the `stall` fault names command `name`; if so the fault is taken (its file removed)."""
        if (self.control("stall") or "").strip() != name:
            return False
        try:
            os.remove(os.path.join(self.args.control, "stall"))
        except OSError:
            pass
        return True

    def stall(self, stall, stream, send):
        """Serves a stalled command: `send` gets the first half of its output, then nothing until
        the host closes the stream (at most 120 s: a host that never closes it is logged)."""
        self.note("stalled " + stall.name)
        if stall.out:
            send(stall.out[:len(stall.out) // 2])
        until = time.monotonic() + 120
        with stream.cv:
            while not stream.closed and time.monotonic() < until:
                stream.cv.wait(0.5)
            self.note("stall ended: " + ("the host closed the connection" if stream.closed else "not closed within 120 s"))

    def dispatch(self, a, stdin):
        ok = lambda text="": ((text + "\n").encode() if text else b"", b"", 0)
        cmd = a[0]
        if cmd == "echo":
            return ok(" ".join(a[1:]))
        if cmd in ("true", ":"):
            return ok()
        if cmd == "false":
            return b"", b"", 1
        if cmd == "getprop":
            props = {"ro.build.version.sdk": str(self.args.sdk), "ro.product.model": "EacuStandIn",
                     "ro.product.name": "standin", "ro.build.version.release": "11"}
            return ok(props.get(a[1], "")) if len(a) > 1 else ok("\n".join(f"[{k}]: [{v}]" for k, v in props.items()))
        if cmd == "grep":
            pat = a[-1]
            if "-E" in a:
                lines = [ln for ln in stdin.decode().splitlines() if re.search(pat, ln)]
            else:
                lines = [ln for ln in stdin.decode().splitlines() if pat in ln]
            if "-m1" in a:
                lines = lines[:1]
            return ("".join(ln + "\n" for ln in lines)).encode(), b"", 0 if lines else 1
        if cmd == "wm" and a[1] == "size":
            return ok(f"Physical size: {self.w}x{self.h}")
        if cmd == "wm" and a[1] == "density":
            return ok(f"Physical density: {self.args.density}")
        if cmd == "dumpsys":
            what = a[1] if len(a) > 1 else ""
            if what == "input":
                return ok(f"INPUT MANAGER (dumpsys input)\n  Viewport: displayId=0\n    {self.orientation_line()}")
            if what == "input_method":
                bound = self.ime if time.monotonic() >= self.ime_bound_at else LATIN_IME
                return ok(f"Current Input Method Manager state:\n  mCurMethodId={bound}\n  mInputShown=true")
            if what == "window":
                return ok(f"  mCurrentFocus=Window{{1a2b u0 {self.current_activity()}}}")
            return ok(f"DUMP OF SERVICE {what}:")
        if cmd == "settings":
            if a[1] == "get" and a[3] == "default_input_method":
                return ok(self.ime)
            return ok("null") if a[1] == "get" else ok()
        if cmd == "ime":
            if a[1] == "list":
                return ok(f"{ADB_IME}\n{LATIN_IME}" if self.args.adbkeyboard else LATIN_IME)
            if a[1] == "set":
                if a[2] == ADB_IME and not self.args.adbkeyboard:
                    return b"", f"Unknown input method {a[2]} cannot be selected for user #0\n".encode(), 255
                if a[2] != self.ime:
                    # The new IME binds to the focused field a moment later (a phone's IME switch).
                    self.ime_bound_at = time.monotonic() + (random.uniform(0.2, 0.5) if self.costs.phone else 0)
                self.ime = a[2]
                return ok(f"Input method {a[2]} selected for user #0")
            return ok()
        if cmd == "screencap":
            data = self.screencap("-p" in a)
            files = [x for x in a[1:] if not x.startswith("-")]
            if files:
                self.files[files[0]] = data
                return b"", b"", 0
            return data, b"", 0
        if cmd == "input":
            return self.input(a[1:])
        if cmd == "getevent":
            return self.getevent(a[1:])
        if cmd == "sendevent":
            return self.sendevent(a[1:])
        if cmd == "sleep":
            pause(float(a[1]))
            return ok()
        if cmd == "uiautomator" and a[1] == "dump":
            path = a[2] if len(a) > 2 else "/sdcard/window_dump.xml"
            if self.take_control("idle_failures") or not self.wait_idle():
                return ok("ERROR: could not get idle state.")
            pause(self.costs.dump_walk())
            self.files[path] = self.app_call({"cmd": "dump", "rotation": self.rotation}).get("xml", "").encode()
            return ok(f"UI hierchary dumped to: {path}")
        if cmd == "am":
            return self.am(a[1:])
        if cmd == "monkey":
            pkg = a[a.index("-p") + 1]
            if pkg != PKG:
                return b"", b"** No activities found to run, monkey aborted.\n", 252
            self.start_app()
            return ok("Events injected: 1")
        if cmd == "pm" and a[1:3] == ["list", "packages"]:
            return ok(f"package:{PKG}\npackage:com.android.adbkeyboard")
        if cmd == "cat":
            if a[1] in self.files:
                return self.files[a[1]], b"", 0
            return b"", f"cat: {a[1]}: No such file or directory\n".encode(), 1
        if cmd == "rm":
            for p in a[1:]:
                self.files.pop(p, None)
            return ok()
        return b"", f"/system/bin/sh: {cmd}: inaccessible or not found\n".encode(), 127

    def orientation_line(self):
        """The display's rotation as TouchInputMapper's dump prints it on --sdk's Android:
        `SurfaceOrientation: 1` to Android 12 (SDK 32), `InputDeviceOrientation: 1` on 13 and 14,
        `InputDeviceOrientation: Rotation90` from 15 (SDK 35; reference/adb.md)."""
        if self.args.sdk <= 32:
            return f"SurfaceOrientation: {self.rotation}"
        if self.args.sdk <= 34:
            return f"InputDeviceOrientation: {self.rotation}"
        return f"InputDeviceOrientation: Rotation{self.rotation * 90}"

    def current_activity(self):
        return f"{PKG}/{PKG}.MainActivity" if self.app else "com.android.launcher3/.Launcher"

    def wait_idle(self):
        """uiautomator's idle wait with --costs phone (AOSP DumpCommand.java: waitForIdle(1000,
        10000)): until 1 s passed without a screen change, at most 10 s. False when it timed out."""
        if not self.costs.phone:
            return True
        t0 = time.monotonic()
        while True:
            with self.draw_cv:
                busy = bool(self.drawing)
            quiet = time.monotonic() - self.last_draw
            if not busy and quiet >= 1.0:
                return True
            if time.monotonic() - t0 >= 10:
                return False
            pause(0.02 if busy else 1.0 - quiet)

    def input(self, a):
        kind = a[0]
        actions = []
        if kind == "tap":
            x, y = int(float(a[1])), int(float(a[2]))
            actions.append(lambda: self.xdotool("mousemove", str(x), str(y), "click", "1"))
        elif kind == "swipe":
            x1, y1, x2, y2 = (str(int(float(v))) for v in a[1:5])
            actions.append(lambda: self.xdotool("mousemove", x1, y1, "mousedown", "1", "mousemove", x2, y2, "mouseup", "1"))
        elif kind in ("keyevent", "keycombination"):
            for code in a[1:]:
                code = int(code) if code.isdigit() else code
                if code in APP_KEYS:
                    actions.append(lambda c=code: self.app_call({"cmd": APP_KEYS[c]}))
                elif code in KEYS:
                    actions.append(lambda c=code: self.xdotool("key", KEYS[c]))
                else:
                    return b"", f"Error: unknown key code {code}\n".encode(), 1
        elif kind == "text":
            text = a[1].replace("%s", " ")
            if any(ord(c) > 126 for c in text):
                return b"", b"Exception occurred while executing 'text': characters outside ASCII\n", 1
            actions.append(lambda: self.xdotool("type", "--delay", "0", "--", text))
        else:
            return b"", f"Error: Unknown command: {kind}\n".encode(), 1
        for act in actions:
            self.later(act)
        return b"", b"", 0

    # ---- the touchscreen's evdev node (getevent, sendevent)
    def getevent(self, a):
        """`getevent -pl` in AOSP toolbox getevent.c's format: a keys device, then the touchscreen
        (not with the `touch` control file "none": an emulator without one)."""
        if a != ["-pl"]:
            return b"", f"getevent: this stand-in serves -pl only, got {a}\n".encode(), 1
        out = ['add device 1: /dev/input/event0', '  name:     "gpio-keys"', '  events:',
               '    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER', '  input props:',
               '    <none>']
        if self.control("touch") != "none":
            out += [f'add device 2: {TOUCH_NODE}', '  name:     "standin_touchscreen"', '  events:',
                    '    KEY (0001): BTN_TOUCH']
            for i, (label, (lo, hi)) in enumerate(TOUCH_AXES.items()):
                head = "    ABS (0003): " if i == 0 else " " * 16
                out.append(f"{head}{label:<20.20s}  : value 0, min {lo}, max {hi}, fuzz 0, flat 0, resolution 0")
            out += ['  input props:', '    INPUT_PROP_DIRECT']
        return ("\n".join(out) + "\n").encode(), b"", 0

    def sendevent(self, a):
        """`sendevent DEVICE TYPE CODE VALUE` (toolbox sendevent.c: one input_event written to the
        node). The touchscreen follows multi-touch protocol type B (the kernel's
        Documentation/input/multi-touch-protocol.rst) as Android's InputReader reads it: at each
        SYN_REPORT slot 0's contact is down while its ABS_MT_TRACKING_ID is not -1, BTN_TOUCH is 1
        and its pressure above 0 (else it hovers: MultiTouchInputMapper); a contact going down,
        moving and going up reach the app as a press, moves and a release at the pixel the axes
        map to (TouchInputMapper: the axis range over the panel's natural size, turned by the
        rotation). The `touch` control file "denied": the node cannot be opened (no group input)."""
        if len(a) != 4:
            return b"", b"usage: sendevent device type code value\n", 1
        if a[0] != TOUCH_NODE or self.control("touch") == "none":
            return b"", f"could not open {a[0]}, No such file or directory\n".encode(), 1
        if self.control("touch") == "denied":
            return b"", f"could not open {a[0]}, Permission denied\n".encode(), 1
        kind, code, value = int(a[1]), int(a[2]), int(a[3])
        t = self.touch_state
        if kind == EV_ABS and code in ABS_CODES:
            name = ABS_CODES[code]
            if name == "ABS_MT_SLOT":
                t["slot"] = value
            elif t["slot"] == 0:
                t[name] = value
        elif kind == EV_KEY and code == BTN_TOUCH:
            t["btn"] = value
        elif kind == EV_SYN and value == 0 and code == 0:
            self.touch_sync()
        return b"", b"", 0

    def touch_sync(self):
        t = self.touch_state
        down = t.get("ABS_MT_TRACKING_ID", -1) != -1 and t.get("btn", 0) == 1 and t.get("ABS_MT_PRESSURE", 0) > 0
        x, y = self.touch_pixel(t.get("ABS_MT_POSITION_X", 0), t.get("ABS_MT_POSITION_Y", 0))
        was = t.get("down")
        if down and not was:
            self.note(f"touch down {x} {y}")
            self.later(lambda: self.xdotool("mousemove", str(x), str(y), "mousedown", "1"))
        elif down and was != (x, y):
            self.later(lambda: self.xdotool("mousemove", str(x), str(y)))
        elif not down and was:
            self.later(lambda: self.xdotool("mouseup", "1"))
        t["down"] = (x, y) if down else None

    def touch_pixel(self, rx, ry):
        """The screen pixel (as shown now) of raw axis values: AOSP TouchInputMapper's mapping."""
        (x0, x1), (y0, y1) = TOUCH_AXES["ABS_MT_POSITION_X"], TOUCH_AXES["ABS_MT_POSITION_Y"]
        nx = (rx - x0) * self.w / (x1 - x0 + 1)  # the natural orientation's pixels
        ny = (ry - y0) * self.h / (y1 - y0 + 1)
        r = self.rotation
        if r == 1:
            x, y = ny, self.w - nx
        elif r == 2:
            x, y = self.w - nx, self.h - ny
        elif r == 3:
            x, y = self.h - ny, nx
        else:
            x, y = nx, ny
        return int(x), int(y)

    def am(self, a):
        ok = lambda text: ((text + "\n").encode(), b"", 0)
        if a[0] == "force-stop":
            if a[1] == PKG:
                self.stop_app()
            return b"", b"", 0
        if a[0] == "start":
            if "-d" in a:
                return ok(f"Starting: Intent {{ act=android.intent.action.VIEW dat={a[a.index('-d') + 1]} }}")
            if "-n" in a and a[a.index("-n") + 1].split("/")[0] == PKG:
                self.start_app()
                return ok(f"Starting: Intent {{ cmp={a[a.index('-n') + 1]} }}")
            return b"", b"Error: Activity not started, unable to resolve Intent\n", 1
        if a[0] == "broadcast":
            action = a[a.index("-a") + 1]
            # ADBKeyBoard commits only while it is the current IME, bound to a focused text field
            # (the app's commit does nothing without one); else the broadcast completes unheard.
            if action == "ADB_INPUT_B64" and self.ime == ADB_IME and time.monotonic() >= self.ime_bound_at:
                text = base64.b64decode(a[a.index("msg") + 1]).decode("utf-8")
                self.later(lambda: self.app_call({"cmd": "commit", "text": text}))
            return ok(f"Broadcasting: Intent {{ act={action} flg=0x400000 }}\nBroadcast completed: result=0")
        return b"", f"Unknown command: {a[0]}\n".encode(), 1


class Stream:
    """One OPENed service: the host's writes arrive through feed(); write() sends WRTE packets,
    each waiting for the host's OKAY."""

    def __init__(self, conn, local, remote):
        self.conn, self.local, self.remote = conn, local, remote
        self.buf = b""
        self.cv = threading.Condition()
        self.acked = True
        self.closed = False

    def feed(self, data):
        with self.cv:
            self.buf += data
            self.cv.notify_all()

    def read(self, n):
        """Exactly n bytes; None when the stream closed first."""
        with self.cv:
            while len(self.buf) < n and not self.closed:
                self.cv.wait()
            if len(self.buf) < n:
                return None
            data, self.buf = self.buf[:n], self.buf[n:]
            return data

    def write(self, data):
        for i in range(0, len(data), self.conn.max_data):
            with self.cv:
                while not self.acked and not self.closed:
                    self.cv.wait()
                if self.closed:
                    return
                self.acked = False
            chunk = data[i:i + self.conn.max_data]
            self.conn.phone.costs.send(len(chunk))
            self.conn.send(A_WRTE, self.local, self.remote, chunk)

    def close(self):
        with self.cv:
            while not self.acked and not self.closed:
                self.cv.wait(5)
            was = self.closed
            self.closed = True
            self.cv.notify_all()
        if not was:
            self.conn.send(A_CLSE, self.local, self.remote, b"")


class Connection:
    def __init__(self, sock, phone):
        self.sock, self.phone = sock, phone
        self.wlock = threading.Lock()
        self.streams = {}
        self.next_id = 1
        self.max_data = MAX_DATA

    def send(self, cmd, a0, a1, data):
        head = struct.pack("<6I", cmd, a0, a1, len(data), 0, cmd ^ 0xFFFFFFFF)
        with self.wlock:
            try:
                self.sock.sendall(head + data)
            except OSError:
                pass

    def recv_exact(self, n):
        data = b""
        while len(data) < n:
            part = self.sock.recv(n - len(data))
            if not part:
                return None
            data += part
        return data

    def serve(self):
        try:
            while True:
                head = self.recv_exact(24)
                if head is None:
                    break
                cmd, a0, a1, length, _crc, _magic = struct.unpack("<6I", head)
                data = self.recv_exact(length) if length else b""
                if data is None:
                    break
                self.handle(cmd, a0, a1, data)
        finally:
            for s in list(self.streams.values()):
                with s.cv:
                    s.closed = True
                    s.cv.notify_all()
            self.sock.close()

    def handle(self, cmd, a0, a1, data):
        if cmd == A_CNXN and self.phone.args.unauthorized:
            # A phone whose "Allow USB debugging?" prompt was not accepted: every signature refused.
            self.send(A_AUTH, 1, 0, os.urandom(20))
        elif cmd == A_AUTH:
            if a0 == 2:  # SIGNATURE: refused, another token
                self.send(A_AUTH, 1, 0, os.urandom(20))
        elif cmd == A_CNXN:
            self.max_data = min(MAX_DATA, a1)
            banner = (f"device::ro.product.name=standin;ro.product.model=EacuStandIn;ro.product.device=standin;"
                      f"features=shell_v2,cmd").encode()
            self.send(A_CNXN, A_VERSION, MAX_DATA, banner)
        elif cmd == A_OPEN:
            service = data.rstrip(b"\0").decode()
            self.phone.note("OPEN " + service)
            local = self.next_id
            self.next_id += 1
            stream = Stream(self, local, a0)
            self.streams[local] = stream
            self.send(A_OKAY, local, a0, b"")
            threading.Thread(target=self.run_service, args=(stream, service), daemon=True).start()
        elif cmd == A_OKAY:
            s = self.streams.get(a1)
            if s:
                with s.cv:
                    s.acked = True
                    s.cv.notify_all()
        elif cmd == A_WRTE:
            s = self.streams.get(a1)
            if s:
                s.feed(data)
                self.send(A_OKAY, s.local, s.remote, b"")
        elif cmd == A_CLSE:
            s = self.streams.pop(a1, None)
            if s:
                with s.cv:
                    was = s.closed
                    s.closed = True
                    s.cv.notify_all()
                if not was:
                    self.send(A_CLSE, s.local, s.remote, b"")

    def screenrecord(self, stream, command, v2):
        """Serves `screenrecord ...` as it runs (its stdout streamed); False when it is not
        there (the `no_screenrecord` fault: the shell answers it as any unknown command)."""
        argv = shlex.split(command)
        if not argv or argv[0] != "screenrecord" or self.phone.control("no_screenrecord") is not None:
            return False
        self.phone.note(command)
        if self.phone.take_stall("screenrecord"):
            self.phone.stall(Stall("screenrecord", b""), stream, stream.write)
            stream.close()
            return True
        rec = (threading.Event(), threading.Event())
        with self.phone.frame_cv:
            self.phone.recorders.append(rec)
        try:
            err, st = self.phone.screenrecord(argv, (lambda d: stream.write(packet(1, d))) if v2 else stream.write,
                                              lambda: stream.closed, rec[0])
            if v2:
                stream.write(packet(2, err) + packet(3, bytes([st & 0xFF])))
            stream.close()
        finally:
            with self.phone.frame_cv:
                self.phone.recorders.remove(rec)
            rec[1].set()
        return True

    def run_service(self, stream, service):
        try:
            if service.startswith("exec:") and self.screenrecord(stream, service[5:], False):
                pass
            elif service.startswith("exec:"):
                out, err, _ = self.phone.run_line(service[5:], 0)
                stream.write(out)
            elif service.startswith("shell,") or service.startswith("shell:"):
                opts, _, command = service.partition(":")
                v2 = "v2" in opts.split(",")
                if command and self.screenrecord(stream, command, v2):
                    pass
                elif command:
                    out, err, st = self.phone.run_line(command, 0)
                    if v2:
                        stream.write(packet(1, out) + packet(2, err) + packet(3, bytes([st & 0xFF])))
                    else:
                        stream.write(out + err)
                else:
                    self.interactive(stream, v2)
            elif service == "sync:":
                self.sync(stream)
        except ConnectionAbortedError:
            self.sock.shutdown(socket.SHUT_RDWR)
            return
        except Stall as st:
            v2 = service.startswith("shell,") and "v2" in service.partition(":")[0].split(",")
            self.phone.stall(st, stream, (lambda d: stream.write(packet(1, d))) if v2 else stream.write)
        except Exception as e:  # a bug of the stand-in: say so on stderr, end the stream
            print(f"standin: {service}: {e!r}", file=sys.stderr)
        stream.close()
        self.streams.pop(stream.local, None)

    def interactive(self, stream, v2):
        line, status = b"", 0
        while True:
            if v2:
                head = stream.read(5)
                if head is None:
                    return
                kind, n = head[0], struct.unpack("<I", head[1:])[0]
                data = stream.read(n) if n else b""
                if data is None or kind == 4:
                    return
                if kind != 0:
                    continue
            else:
                data = stream.read(1)
                if data is None:
                    return
            line += data
            while b"\n" in line:
                one, line = line.split(b"\n", 1)
                out, err, status = self.phone.run_line(one.decode(), status)
                if v2:
                    stream.write((packet(1, out) if out else b"") + (packet(2, err) if err else b""))
                else:
                    stream.write(out + err)

    def sync(self, stream):
        files = self.phone.files
        while True:
            head = stream.read(8)
            if head is None:
                return
            rid, n = head[:4], struct.unpack("<I", head[4:])[0]
            arg = stream.read(n) if n else b""
            if arg is None:
                return
            path = arg.decode()
            self.phone.command(["sync", rid.decode(), path], b"")
            if rid == b"STAT":
                data = files.get(path)
                mode = 0o100644 if data is not None else 0
                stream.write(b"STAT" + struct.pack("<III", mode, len(data or b""), int(time.time())))
            elif rid == b"RECV":
                data = files.get(path)
                if data is None:
                    msg = b"No such file or directory"
                    stream.write(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                    continue
                out = b"".join(b"DATA" + struct.pack("<I", len(data[i:i + 65536])) + data[i:i + 65536]
                               for i in range(0, len(data), 65536))
                stream.write(out + b"DONE" + struct.pack("<I", 0))
            elif rid == b"SEND":
                target = path.rsplit(",", 1)[0]
                body = b""
                while True:
                    h = stream.read(8)
                    if h is None:
                        return
                    k, m = h[:4], struct.unpack("<I", h[4:])[0]
                    if k == b"DONE":
                        break
                    body += stream.read(m) or b""
                files[target] = body
                stream.write(b"OKAY" + struct.pack("<I", 0))
            elif rid == b"LIST":
                out = b""
                for p, d in list(files.items()):
                    if os.path.dirname(p) == path.rstrip("/"):
                        name = os.path.basename(p).encode()
                        out += b"DENT" + struct.pack("<IIII", 0o100644, len(d), 0, len(name)) + name
                stream.write(out + b"DONE" + bytes(16))
            elif rid == b"QUIT":
                return
            else:
                msg = f"unknown sync request {rid!r}".encode()
                stream.write(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                return


def png_bytes(w, h, rgba):
    """An RGBA image as PNG (filter 0 on every row, zlib level 1)."""
    raw = b"".join(b"\x00" + rgba[y * w * 4:(y + 1) * w * 4] for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


def packet(kind, data):
    return bytes([kind]) + struct.pack("<I", len(data)) + data


def main():
    global PKG
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port-file", required=True, help="written with the TCP port once listening")
    p.add_argument("--log", help="every command run, one line each")
    p.add_argument("--log-times", action="store_true",
                   help="each log line starts with the monotonic clock's seconds (CLOCK_MONOTONIC, as eacu's); "
                        "a command's end is logged too (\"done NAME\"), and each picture given to the encoder")
    p.add_argument("--control", help="a folder of fault files (see the module's comment)")
    p.add_argument("--width", type=int, default=1080)
    p.add_argument("--height", type=int, default=2400)
    p.add_argument("--density", type=int, default=420)
    p.add_argument("--sdk", type=int, default=30, help="ro.build.version.sdk; also dumpsys input's format (29, 34, 35)")
    p.add_argument("--costs", choices=("none", "phone"), default="none",
                   help="phone: sleep what a phone's screencap, processes, dumps and link cost, draw inputs late (class Costs)")
    p.add_argument("--link", type=float, default=35.0, help="with --costs phone: the link's MB/s (USB 2 about 35, Wi-Fi adb about 5)")
    p.add_argument("--first-frame", choices=("change", "start"), default="change",
                   help="screenrecord's first frame: after the first change of the screen (the quirk scrcpy's "
                        "authors list), or at once")
    p.add_argument("--header", type=int, choices=(12, 16), default=16, help="screencap's raw header size")
    p.add_argument("--no-adbkeyboard", dest="adbkeyboard", action="store_false")
    p.add_argument("--unauthorized", action="store_true", help="answer CNXN with AUTH and refuse every signature")
    p.add_argument("--package", default=PKG, help="the chat app's package (com.tencent.mm: where the wechat module looks)")
    args = p.parse_args()
    PKG = args.package
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    phone = Phone(args)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(f"{srv.getsockname()[1]} {phone.display}\n")
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        while True:
            sock, _ = srv.accept()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=Connection(sock, phone).serve, daemon=True).start()
    finally:
        phone.stop_app()
        phone.xvfb.terminate()
        phone.xvfb.wait(10)
        shutil.rmtree(phone.fbdir, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
