#!/usr/bin/env python3
"""The healing test's application (issue 34), in four versions of one Tk window:
v1: a list of fruit (Apple Banana Orange), an icon (a drawn star), a row of buttons Save and 确定;
v2: restyled (colours, a larger font), the list reordered (Orange Apple Banana), the icon redrawn
    (another colour, a ring around it), Save moved to a row of its own below, 确定 renamed 提交;
v3: v2 without Save;
v4: v2 with the icon turned into a button 收藏 (no star: its kind and its look changed at once,
    what the similarity search cannot tell from a new element, and a model is asked about).
Usage: heal_app.py VERSION LOG [PLACES]. Every event it receives is appended to LOG as it comes:
"press X Y" for each mouse press anywhere in the window (root pixels), then what it did
("select Banana", "click icon", "click save", "click ok"); a status line shows the last. PLACES,
when given, receives where to click once the window is drawn ("row X Y" for Banana, "icon X Y",
"save X Y", "ok X Y"; screen pixels)."""
import os
import sys
import tkinter as tk

version, log = sys.argv[1], sys.argv[2]
places = sys.argv[3] if len(sys.argv) > 3 else None
v1 = version == "v1"
bg = "#d9d9d9" if v1 else "#dde8f4"

root = tk.Tk()
# Tk's default fonts (their fallback draws the Chinese labels) at 14 pixels; v2's are larger.
import tkinter.font as tkfont
for name in ("TkDefaultFont", "TkTextFont"):
    tkfont.nametofont(name).configure(size=-14 if v1 else -17)
font = tkfont.nametofont("TkDefaultFont")
root.title("订单")
root.geometry("+120+90")
root.configure(bg=bg)


def note(line):
    with open(log, "a", encoding="utf-8") as f:
        f.write(line + "\n")


root.bind_all("<ButtonPress>", lambda e: note("press %d %d" % (e.x_root, e.y_root)), add="+")
status = tk.Label(root, text="ready", bg=bg, font=font)
status.pack(pady=6)


def did(what):
    note(what)
    status.configure(text=what)


fruits = ("Apple", "Banana", "Orange") if v1 else ("Orange", "Apple", "Banana")
# The list: one row a fruit, the chosen one highlighted.
rows = tk.Frame(root, bg="white" if v1 else "#fffbe6", bd=1, relief="sunken")
rows.pack(padx=30, pady=8)
row_of = {}


def choose(fruit):
    for f, w in row_of.items():
        w.configure(bg=rows["bg"] if f != fruit else ("#c5d5e4" if v1 else "#cfe8cf"))
    did("select " + fruit)


for fruit in fruits:
    row = tk.Label(rows, text=fruit, bg=rows["bg"], anchor="w", width=12, padx=10, pady=3)
    row.pack(fill="x")
    row.bind("<Button-1>", lambda e, f=fruit: choose(f))
    row_of[fruit] = row

if version == "v4":
    icon = tk.Button(root, text="收藏", font=font, command=lambda: did("click icon"), bg="#b9d3ee",
                     activebackground="#a4c2e4")
else:
    icon = tk.Canvas(root, width=44, height=44, bg=bg, highlightthickness=0)
    star = [22, 3, 27, 16, 41, 16, 30, 25, 34, 39, 22, 31, 10, 39, 14, 25, 3, 16, 17, 16]
    if v1:
        icon.create_polygon(star, fill="#e8b400", outline="#7a5c00")
    else:
        icon.create_oval(1, 1, 43, 43, outline="#1f5fa8", width=2)
        icon.create_polygon(star, fill="#f07818", outline="#803000")
    icon.bind("<Button-1>", lambda e: did("click icon"))
icon.pack(pady=6)

buttons = tk.Frame(root, bg=bg)
buttons.pack(pady=6)
style = {} if v1 else {"bg": "#b9d3ee", "activebackground": "#a4c2e4"}
ok = tk.Button(buttons, text="确定" if v1 else "提交", font=font, command=lambda: did("click ok"), **style)
save = None
if version != "v3":
    save_row = buttons if v1 else tk.Frame(root, bg=bg)
    if not v1:
        save_row.pack(pady=10)
    save = tk.Button(save_row, text="Save", font=font, command=lambda: did("click save"), **style)
    save.pack(side="left", padx=12)
ok.pack(side="left", padx=12)


def tell():
    root.update_idletasks()
    r = row_of["Banana"]
    spots = [("row", r.winfo_rootx() + 34, r.winfo_rooty() + r.winfo_height() // 2),
             ("icon", icon.winfo_rootx() + icon.winfo_width() // 2, icon.winfo_rooty() + icon.winfo_height() // 2),
             ("ok", ok.winfo_rootx() + ok.winfo_width() // 2, ok.winfo_rooty() + ok.winfo_height() // 2)]
    if save is not None:
        spots.insert(2, ("save", save.winfo_rootx() + save.winfo_width() // 2, save.winfo_rooty() + save.winfo_height() // 2))
    with open(places + ".tmp", "w", encoding="utf-8") as f:
        for name, px, py in spots:
            f.write("%s %d %d\n" % (name, px, py))
    os.replace(places + ".tmp", places)


if places:
    root.after(300, tell)
root.mainloop()
