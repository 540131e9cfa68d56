#!/usr/bin/env python3
"""A messenger-like app for the Android stand-in (standin.py), laid out like WeChat's: a chat list
(a title, a search button described "搜索", the contacts, the tabs 微信 通讯录 发现 我; 我 opens a
payment PIN field, a password EditText), a search
screen (a field, the contacts whose name holds its text, 王五 too who has no row in the list), and a
chat (a back button described "返回", the title, the messages, a text field and a 发送 button),
drawn with Tk on the stand-in's own Xvfb at the phone's size. argv: W H [PACKAGE [VERSION]].
VERSION v2 (the healing test's next version of the app, issue 34; default v1): the chat list's
rows reordered (张三's row moved from the first to the last) and the chat's send button renamed
发送 -> Send.

It is a real program: taps reach it as X pointer events (xdotool), the stand-in's screencap is
a capture of its Xvfb. On stdin it takes JSON lines from the stand-in, each answered by one JSON
line on stdout:
  {"cmd": "dump", "rotation": R}  -> {"xml": "<hierarchy ...>"}: its widget tree as uiautomator XML
  {"cmd": "commit", "text": T}    -> {"ok": true}: T inserted into the focused field (an IME's commit)
  {"cmd": "back"} / {"cmd": "home"} -> {"ok": true}: Android's BACK (chat -> list) and HOME keys
  {"cmd": "size", "w": W, "h": H} -> {"ok": true}: relayout at W x H (a rotation)
  {"cmd": "screen"}               -> {"screen": "list" | "search" | "chat:NAME", "messages": [...]}
  {"cmd": "tick"}                 -> {"ok": true}: an animation's next frame (a counter at the top left,
                                     its colour changing): the stand-in's `animate` fault
"""
import json
import sys
import tkinter as tk
from xml.sax.saxutils import quoteattr

PKG = sys.argv[3] if len(sys.argv) > 3 else "com.example.chat"
V2 = len(sys.argv) > 4 and sys.argv[4] == "v2"
CONTACTS = ["李四", "Alice", "张三"] if V2 else ["张三", "李四", "Alice"]  # the rows of the chat list
SEND = "Send" if V2 else "发送"
SEARCHABLE = ["张三", "李四", "Alice", "王五"]  # found through search only
TABS = ["微信", "通讯录", "发现", "我"]
CLASSES = {"Button": "android.widget.Button", "Entry": "android.widget.EditText",
           "Label": "android.widget.TextView", "Frame": "android.widget.LinearLayout",
           "Tk": "android.widget.FrameLayout"}


class ChatApp:
    def __init__(self, w, h):
        self.root = tk.Tk(className="chatapp")
        self.root.overrideredirect(True)
        self.font = ("WenQuanYi Micro Hei", 30)
        self.big = ("WenQuanYi Micro Hei", 40, "bold")
        self.messages = {c: [] for c in SEARCHABLE}
        self.ids = {}  # widget -> resource-id suffix
        self.descs = {}  # widget -> content-desc
        self.contact = None
        self.searching = False
        self.resize(w, h)
        self.show_list()
        self.root.createfilehandler(sys.stdin, tk.READABLE, self.on_stdin)

    def resize(self, w, h):
        self.w, self.h = w, h
        self.root.geometry(f"{w}x{h}+0+0")

    def clear(self):
        for c in self.root.winfo_children():
            c.destroy()
        self.ids = {}
        self.descs = {}

    def widget(self, cls, rid, desc="", parent=None, **kw):
        wdg = cls(parent or self.root, **kw)
        self.ids[wdg] = rid
        if desc:
            self.descs[wdg] = desc
        return wdg

    def show_list(self):
        self.clear()
        self.contact = None
        self.searching = False
        self.widget(tk.Label, "title", text="Chats", font=self.big, bg="#2e7d32", fg="white").place(
            x=0, y=0, width=self.w - 160, height=160)
        self.widget(tk.Button, "search", desc="搜索", text="", bg="#2e7d32", relief="flat",
                    command=self.show_search).place(x=self.w - 160, y=0, width=160, height=160)
        for i, name in enumerate(CONTACTS):
            self.widget(tk.Button, f"contact_{i}", text=name, font=self.font, anchor="w", relief="flat",
                        bg="white", command=lambda n=name: self.show_chat(n)).place(
                x=0, y=180 + i * 200, width=self.w, height=180)
        tab_w = self.w // len(TABS)
        for i, tab in enumerate(TABS):
            label = self.widget(tk.Label, f"tab_{i}", text=tab, font=self.font, bg="#f0f0f0",
                                fg="#2e7d32" if i == 0 else "black")
            label.place(x=i * tab_w, y=self.h - 180, width=tab_w, height=180)
            if tab == "我":
                label.bind("<Button-1>", lambda _e: self.show_me())
        self.root.update_idletasks()

    def show_me(self):
        """The 我 tab: a payment PIN field (a password EditText: the tree says password="true")."""
        self.clear()
        self.contact = None
        self.widget(tk.Button, "me_back", desc="返回", text="<", font=self.big, command=self.show_list).place(
            x=0, y=0, width=160, height=160)
        self.widget(tk.Label, "me_title", text="支付密码", font=self.big).place(x=180, y=0, width=self.w - 180, height=160)
        self.entry = self.widget(tk.Entry, "pin", font=self.font, show="*")
        self.entry.place(x=20, y=200, width=self.w - 40, height=160)
        self.entry.focus_set()
        self.root.update_idletasks()

    def show_search(self):
        self.clear()
        self.contact = None
        self.searching = True
        self.widget(tk.Button, "search_back", desc="返回", text="<", font=self.big, command=self.show_list).place(
            x=0, y=0, width=160, height=160)
        self.query = tk.StringVar(self.root)
        self.entry = self.widget(tk.Entry, "search_input", font=self.font, textvariable=self.query)
        self.entry.place(x=180, y=20, width=self.w - 200, height=120)
        self.results = tk.Frame(self.root, bg="white")
        self.results.place(x=0, y=180, width=self.w, height=self.h - 180)
        self.query.trace_add("write", lambda *_: self.show_results())
        self.entry.focus_set()
        self.root.update_idletasks()

    def show_results(self):
        for c in self.results.winfo_children():
            self.ids.pop(c, None)
            c.destroy()
        q = self.query.get().strip()
        found = [n for n in SEARCHABLE if q and q in n]
        for i, name in enumerate(found):
            self.widget(tk.Button, "result", parent=self.results, text=name, font=self.font, anchor="w",
                        relief="flat", bg="white", command=lambda n=name: self.show_chat(n)).place(
                x=0, y=i * 200, width=self.w, height=180)
        self.root.update_idletasks()

    def show_chat(self, name):
        self.clear()
        self.contact = name
        self.searching = False
        self.widget(tk.Button, "back", desc="返回", text="<", font=self.big, command=self.show_list).place(
            x=0, y=0, width=160, height=160)
        self.widget(tk.Label, "chat_title", text=name, font=self.big, bg="#2e7d32", fg="white").place(
            x=160, y=0, width=self.w - 160, height=160)
        for i, text in enumerate(self.messages[name][-8:]):
            self.widget(tk.Label, f"message_{i}", text=text, font=self.font, bg="#dcf8c6", anchor="e").place(
                x=self.w // 4, y=200 + i * 140, width=self.w * 3 // 4 - 20, height=120)
        self.entry = self.widget(tk.Entry, "input", font=self.font)
        self.entry.place(x=20, y=self.h - 200, width=self.w - 300, height=160)
        self.widget(tk.Button, "send", text=SEND, font=self.font, bg="#2e7d32", fg="white",
                    command=self.send).place(x=self.w - 260, y=self.h - 200, width=240, height=160)
        self.entry.focus_set()
        self.root.update_idletasks()

    def send(self):
        text = self.entry.get()
        if text:
            self.messages[self.contact].append(text)
            self.show_chat(self.contact)

    def node(self, wdg, index, rotation_attr=None):
        cls = "android.widget.FrameLayout" if wdg is self.root else CLASSES.get(wdg.winfo_class(), "android.view.View")
        x, y = wdg.winfo_rootx(), wdg.winfo_rooty()
        bw, bh = wdg.winfo_width(), wdg.winfo_height()
        text = ""
        if isinstance(wdg, tk.Entry):
            text = "•" * len(wdg.get()) if wdg.cget("show") else wdg.get()  # a password shows dots
        elif isinstance(wdg, (tk.Button, tk.Label)):
            text = wdg.cget("text")
        rid = f"{PKG}:id/{self.ids[wdg]}" if wdg in self.ids else ""
        focused = self.root.focus_get() is wdg
        attrs = {
            "index": index, "text": text, "resource-id": rid, "class": cls, "package": PKG,
            "content-desc": self.descs.get(wdg, ""), "checkable": "false", "checked": "false",
            "clickable": "true" if isinstance(wdg, (tk.Button, tk.Entry)) else "false",
            "enabled": "true", "focusable": "true" if isinstance(wdg, (tk.Button, tk.Entry)) else "false",
            "focused": "true" if focused else "false", "scrollable": "false", "long-clickable": "false",
            "password": "true" if isinstance(wdg, tk.Entry) and wdg.cget("show") else "false", "selected": "false", "bounds": f"[{x},{y}][{x + bw},{y + bh}]",
        }
        kids = "".join(self.node(c, i) for i, c in enumerate(w for w in wdg.winfo_children() if w.winfo_ismapped()))
        a = " ".join(f"{k}={quoteattr(str(v))}" for k, v in attrs.items())
        return f"<node {a}>{kids}</node>" if kids else f"<node {a} />"

    def dump(self, rotation):
        self.root.update()
        status = (f'<node index="0" text="" resource-id="com.android.systemui:id/status_bar" '
                  f'class="android.widget.FrameLayout" package="com.android.systemui" content-desc="" '
                  f'checkable="false" checked="false" clickable="false" enabled="true" focusable="false" '
                  f'focused="false" scrollable="false" long-clickable="false" password="false" '
                  f'selected="false" bounds="[0,0][{self.w},0]" />')
        return (f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"{rotation}\">"
                f"{self.node(self.root, 0)}{status}</hierarchy>")

    def on_stdin(self, *_):
        line = sys.stdin.readline()
        if not line:
            self.root.destroy()
            return
        req = json.loads(line)
        cmd = req["cmd"]
        if cmd == "dump":
            out = {"xml": self.dump(req.get("rotation", 0))}
        elif cmd == "commit":
            focus = self.root.focus_get()
            if isinstance(focus, tk.Entry):
                focus.insert("insert", req["text"])
            out = {"ok": isinstance(focus, tk.Entry)}
        elif cmd in ("back", "home"):
            self.show_list()
            out = {"ok": True}
        elif cmd == "size":
            self.resize(req["w"], req["h"])
            self.show_chat(self.contact) if self.contact else self.show_list()
            out = {"ok": True}
        elif cmd == "tick":
            self.ticks = getattr(self, "ticks", 0) + 1
            if not getattr(self, "ticker", None) or not self.ticker.winfo_exists():
                self.ticker = tk.Label(self.root, font=self.font)
                self.ticker.place(x=0, y=0, width=200, height=80)
            self.ticker.configure(text=str(self.ticks), bg=("#ffcc00", "#00ccff", "#ff66aa")[self.ticks % 3])
            out = {"ok": True}
        elif cmd == "screen":
            out = {"screen": f"chat:{self.contact}" if self.contact else "search" if self.searching else "list",
                   "messages": self.messages[self.contact] if self.contact else []}

        else:
            out = {"error": f"unknown command {cmd}"}
        self.root.update()
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    ChatApp(int(sys.argv[1]), int(sys.argv[2])).root.mainloop()
