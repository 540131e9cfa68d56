#!/usr/bin/env python3
"""A Tk entry for the typed_text test: prints its text on a line (then empties it) at each
Return. Title: argv[1] (default "eacu typed text tk")."""
import sys
import tkinter as tk

root = tk.Tk()
root.title(sys.argv[1] if len(sys.argv) > 1 else "eacu typed text tk")
root.geometry("+0+0")
entry = tk.Entry(root, width=60)
entry.pack()
entry.focus_set()


def done(_event):
    print(entry.get(), flush=True)
    entry.delete(0, "end")


entry.bind("<Return>", done)
root.mainloop()
