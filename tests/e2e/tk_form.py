#!/usr/bin/env python3
"""A small Tk form for the recorder's tests: a check box labelled 加急, a Listbox of Chinese rows
and a 确定 button, in Tk's default fonts (Tk exports no accessibility tree: the recorder sees
pixels and OCR only). Usage: tk_form.py OUT [PLACES]: 确定 writes "urgent=<0|1> fruit=<row>" to
OUT and closes; PLACES, when given, receives where the person clicks once the form is drawn
("checkbox X Y", "row X Y" for 香蕉, "ok X Y"; screen pixels)."""
import sys
import tkinter as tk

out = sys.argv[1]
places = sys.argv[2] if len(sys.argv) > 2 else None
root = tk.Tk()
root.title("订单")
root.geometry("+200+150")
urgent = tk.IntVar()
box = tk.Checkbutton(root, text="加急", variable=urgent)
box.pack(anchor="w", padx=30, pady=12)
rows = tk.Listbox(root, height=4, exportselection=False)
for fruit in ("苹果", "香蕉", "橙子"):
    rows.insert("end", fruit)
rows.pack(padx=30, pady=12)


def done():
    sel = rows.curselection()
    with open(out, "w", encoding="utf-8") as f:
        f.write("urgent=%d fruit=%s\n" % (urgent.get(), rows.get(sel[0]) if sel else ""))
    root.destroy()


ok = tk.Button(root, text="确定", command=done)
ok.pack(pady=12)


def tell():
    root.update_idletasks()
    x, y, w, h = rows.bbox(1)
    with open(places + ".tmp", "w", encoding="utf-8") as f:
        # The check box's label (its middle third: the text, not the indicator).
        f.write("checkbox %d %d\n" % (box.winfo_rootx() + box.winfo_width() * 2 // 3,
                                        box.winfo_rooty() + box.winfo_height() // 2))
        f.write("row %d %d\n" % (rows.winfo_rootx() + x + w // 2 + 2, rows.winfo_rooty() + y + h // 2))
        f.write("ok %d %d\n" % (ok.winfo_rootx() + ok.winfo_width() // 2, ok.winfo_rooty() + ok.winfo_height() // 2))
    import os
    os.replace(places + ".tmp", places)


if places:
    root.after(300, tell)
root.mainloop()
