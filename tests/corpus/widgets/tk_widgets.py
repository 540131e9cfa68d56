#!/usr/bin/env python3
"""A Tk window of labelled widgets for the widget corpus and the widget tap test.

Usage: tk_widgets.py MODE
  MODE "main": buttons, check buttons, radio buttons, tabs (ttk.Notebook), one- and
  two-character and Chinese labels, disabled ones and a dark panel.
  MODE "menu": a menu bar whose first menu is posted (its items on screen).
Once the window is drawn it prints one line per label, "BOX<TAB>x<TAB>y<TAB>w<TAB>h<TAB>role<TAB>text"
(the box of the widget holding the label, root-window pixels), then "END". Each press of a button
prints "pressed LABEL" on its own line (the e2e test checks it)."""
import sys
import tkinter as tk
from tkinter import ttk

mode = sys.argv[1] if len(sys.argv) > 1 else "main"
root = tk.Tk()
root.title("eacu tk widgets " + mode)
root.geometry("+40+40")
found = []  # (widget, label, role) or a callable giving boxes


def pressed(label):
    print("pressed " + label, flush=True)


def button(parent, label, **kw):
    b = tk.Button(parent, text=label, command=lambda: pressed(label), **kw)
    found.append((b, label, "button"))
    return b


if mode == "main":
    row1 = tk.Frame(root, padx=8, pady=8)
    row1.pack(fill="x")
    for label in ("OK", "No", "Go", "确定", "取消", "Apply", "Save As", "Open File"):
        button(row1, label).pack(side="left", padx=4)
    row2 = tk.Frame(root, padx=8, pady=4)
    row2.pack(fill="x")
    for label in ("Bold", "Wrap lines", "自动"):
        c = tk.Checkbutton(row2, text=label)
        c.pack(side="left", padx=4)
        found.append((c, label, "check box"))
    var = tk.StringVar(value="A")
    for label in ("A", "Small", "Large size"):
        r = tk.Radiobutton(row2, text=label, variable=var, value=label)
        r.pack(side="left", padx=4)
        found.append((r, label, "radio button"))
    row3 = tk.Frame(root, padx=8, pady=4)
    row3.pack(fill="x")
    for label in ("Off", "Delete all"):
        button(row3, label, state="disabled").pack(side="left", padx=4)
    lab = tk.Label(row3, text="Up")
    lab.pack(side="left", padx=8)
    found.append((lab, "Up", "label"))
    dark = tk.Frame(root, bg="#202428", padx=8, pady=8)
    dark.pack(fill="x")
    for label in ("Run", "中", "Dark mode"):
        button(dark, label, bg="#30343a", fg="#e8e8e8", activebackground="#40444a",
               highlightbackground="#202428").pack(side="left", padx=4)
    dl = tk.Label(dark, text="Status", bg="#202428", fg="#c0c0c0")
    dl.pack(side="left", padx=8)
    found.append((dl, "Status", "label"))
    nb = ttk.Notebook(root)
    tabs = ("General", "Sound", "UI", "高级")
    for label in tabs:
        f = tk.Frame(nb, width=400, height=30)
        nb.add(f, text=label)
    nb.pack(fill="x", padx=8, pady=8)

    def tab_boxes():
        out = []
        # A tab's extent: the columns of the tab row that identify as it.
        y = 6
        spans = {}
        for x in range(nb.winfo_width()):
            try:
                i = nb.index("@%d,%d" % (x, y))
            except tk.TclError:
                continue
            if nb.identify(x, y) == "":
                continue
            lo, hi = spans.get(i, (x, x))
            spans[i] = (min(lo, x), max(hi, x))
        for i, (lo, hi) in sorted(spans.items()):
            top = 0
            bottom = 0
            for yy in range(0, 60):
                if nb.identify(lo + (hi - lo) // 2, yy) != "" and nb.index("@%d,%d" % (lo + (hi - lo) // 2, yy)) == i:
                    bottom = yy
            out.append({"text": tabs[i], "role": "page tab", "x": nb.winfo_rootx() + lo,
                        "y": nb.winfo_rooty() + top, "w": hi - lo + 1, "h": bottom - top + 1})
        return out
    found.append(tab_boxes)
else:
    bar = tk.Menu(root)
    items = ("New", "Open", "Save As", "Quit", "关闭")
    filemenu = tk.Menu(bar, tearoff=0)
    for label in items:
        filemenu.add_command(label=label, command=lambda l=label: pressed(l))
    bar.add_cascade(label="File", menu=filemenu)
    bar.add_cascade(label="Edit", menu=tk.Menu(bar, tearoff=0))
    root.config(menu=bar)
    tk.Label(root, text=" " * 60, width=60, height=12).pack()

    def menu_boxes():
        out = []
        mx, my = filemenu.winfo_rootx(), filemenu.winfo_rooty()
        w = filemenu.winfo_width()
        for i, label in enumerate(items):
            y0 = filemenu.yposition(i)
            y1 = filemenu.yposition(i + 1) if i + 1 < len(items) else filemenu.winfo_height()
            out.append({"text": label, "role": "menu item", "x": mx, "y": my + y0, "w": w, "h": y1 - y0})
        return out
    found.append(menu_boxes)


def report():
    root.update_idletasks()
    out = []
    for f in found:
        if callable(f):
            out.extend(f())
            continue
        w, label, role = f
        out.append({"text": label, "role": role, "x": w.winfo_rootx(), "y": w.winfo_rooty(),
                    "w": w.winfo_width(), "h": w.winfo_height()})
    for b in out:
        print("BOX\t%d\t%d\t%d\t%d\t%s\t%s" % (b["x"], b["y"], b["w"], b["h"], b["role"], b["text"]))
    print("END", flush=True)


def start():
    if mode == "menu":
        root.update()
        filemenu.post(root.winfo_rootx() + 4, root.winfo_rooty() + 4)
        root.update()
    root.after(200, report)


root.after(300, start)
root.mainloop()
