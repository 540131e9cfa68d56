#!/usr/bin/env python3
"""A scripted stand-in for a vision model, for eacu's tests: a real HTTP server on 127.0.0.1
speaking the Anthropic Messages API (POST /v1/messages) and OpenAI chat completions
(POST /v1/chat/completions). It checks each request's shape (headers, roles, image blocks that
decode as PNG/JPEG) and answers like a model would, from what the request says:

- the Set-of-Marks autopilot (seed 000's system prompt): reads the task ("compute 12*34"), counts
  the history lines and clicks the element whose content is the next key ("AC", "1", "2", "*",
  ..., "="), found in the element list it was sent; then {"action": "done"}. A task with
  "needs a human" always answers needs_user; one with "after login" answers needs_user until
  the history shows the person acted ("用户已操作"), then does the arithmetic (needs_user lines
  are not keys pressed);
- the computer tool: a screenshot, then a click on each key; with "after login" in the task it
  first calls the needs_user tool (which the request must offer), and its tool result must say
  the person acted ("用户已操作");
- the click check (seed 001 §4.1, "You check a mouse pointer"): on_target when the pointer
  field lies in the target's box (or within 14 px of its point), else the dx/dy to its centre;
  a task with "misaligned pointer" is never on target (dx/dy of 40/25 px, kept on screen);
- grounding ("You locate one UI element"): the element whose content is the quoted text or the
  named key in "# Find: ..."; with "(box)" in the description it answers with the element's
  0-1000 box instead of its id; unknown keys get {"found": false};
- healing (a "# Find:" saying where the element was "of 1000 on the recorded screen"): the
  request must carry two images (the screenshot and the recorded crop); the element reading one
  of the recorded words, else the element with text nearest the recorded place (within
  150/1000), else {"found": false};
- the planner: taps the keys of the task's expression (the last one as "dynamic:the equals
  key"); with "replan" in the task the first plan has a step that cannot be found, and the
  replan (which sees the executed steps) gives the keys that are still missing;
- ask: with JSON requested, {"width", "height", "images"} of the screenshot it received, or
  prose when the question says "not json"; plain text otherwise.

Usage: fake_model.py [--port N] [--key KEY] [--log FILE]. Prints "PORT <n>" when listening.
"""
import argparse
import base64
import json
import re
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOCK = threading.Lock()
WORDS = {"equals": "=", "plus": "+", "minus": "-", "multiply": "*", "times": "*", "clear": "AC",
         "divide": "/", "point": ".", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
         "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}


class BadRequest(Exception):
    pass


def image_size(data):
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:2] == b"\xff\xd8":
        i = 2
        while i < len(data):
            if data[i] != 0xFF:
                break
            marker = data[i + 1]
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC2):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return w, h
            i += 2 + length
    raise BadRequest("image data is neither PNG nor JPEG")


def decode_b64(s):
    try:
        return base64.b64decode(s, validate=True)
    except Exception as e:  # noqa: BLE001
        raise BadRequest(f"image data is not base64: {e}")


def parse_anthropic(body):
    for k in ("model", "max_tokens", "messages"):
        if k not in body:
            raise BadRequest(f"missing field {k}")
    system = body.get("system", "")
    if isinstance(system, list):
        system = "".join(b.get("text", "") for b in system)
    texts, images, roles = [], [], []
    for m in body["messages"]:
        roles.append(m["role"])
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts = []
        for b in content:
            if b["type"] == "text":
                parts.append(b["text"])
            elif b["type"] == "image":
                src = b["source"]
                if src.get("type") != "base64" or src.get("media_type") not in ("image/png", "image/jpeg"):
                    raise BadRequest("image source must be base64 png/jpeg")
                images.append(image_size(decode_b64(src["data"])))
        texts.append("\n".join(parts))
    return system, texts, roles, images


def parse_openai(body):
    for k in ("model", "messages"):
        if k not in body:
            raise BadRequest(f"missing field {k}")
    system, texts, roles, images = "", [], [], []
    for m in body["messages"]:
        if m["role"] == "system":
            system += m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
            continue
        roles.append(m["role"])
        content = m.get("content") or ""
        if isinstance(content, str):
            texts.append(content)
            continue
        parts = []
        for p in content:
            if p["type"] == "text":
                parts.append(p["text"])
            elif p["type"] == "image_url":
                url = p["image_url"]["url"]
                mt = re.match(r"data:(image/(?:png|jpeg));base64,(.*)$", url, re.S)
                if not mt:
                    raise BadRequest("image_url must be a data: URI with base64 PNG/JPEG")
                images.append(image_size(decode_b64(mt.group(2))))
        texts.append("\n".join(parts))
    return system, texts, roles, images


def check_roles(roles):
    if not roles or roles[0] != "user" or roles[-1] != "user":
        raise BadRequest(f"messages must start and end with a user turn, got {roles}")
    for a, b in zip(roles, roles[1:]):
        if a == b:
            raise BadRequest(f"roles must alternate, got {roles}")


def keys_of(task):
    m = re.search(r"(\d+)\s*([*x×+\-/])\s*(\d+)", task)
    if not m:
        return None
    op = {"x": "*", "×": "*"}.get(m.group(2), m.group(2))
    return ["AC"] + list(m.group(1)) + [op] + list(m.group(3)) + ["="]


def som_elements(text):
    """[(id, content)] from seed 000's list: `  [5] 🔘 asset | "=" | 屏幕下右`."""
    return [(int(i), c) for i, c in re.findall(r"\[(\d+)\] \S+ \S+ \| \"(.*?)\" \|", text)]


def agent_answer(system, texts):
    prompt = texts[-1]
    task = re.search(r"# 任务：(.*)", prompt).group(1)
    history = prompt.split("# 历史操作：", 1)[1]
    done = len(re.findall(r"^Step \d+: (?!需要用户：)", history, re.M))
    if "needs a human" in task:
        return {"thought": "需要登录", "action": "needs_user", "text": "请先登录"}
    if "after login" in task and "用户已操作" not in history:
        return {"thought": "需要先登录", "action": "needs_user", "text": "请先登录，然后点“我已经操作”"}
    seq = keys_of(task)
    if seq is None:
        return {"thought": "看不懂任务", "action": "fail", "text": "no arithmetic in the task"}
    if done >= len(seq):
        return {"thought": "结果已显示", "action": "done"}
    want = seq[done]
    for i, c in som_elements(prompt):
        if c == want:
            return {"thought": f"点击 {want} 键", "element_id": i, "action": "click"}
    return {"thought": f"找不到 {want} 键", "action": "fail", "text": f"no element with content {want!r}"}


def heal_answer(desc, prompt, images):
    """Healing (eacu run --heal): a reference image must come with the screenshot; an element
    whose content is one of the recorded words, else the element with text nearest the recorded
    place (0-1000) within 150, else not found."""
    if len(images) != 2:
        raise BadRequest("a healing request must carry the screenshot and the reference image, got %d images" % len(images))
    at = re.search(r"it was at \((\d+), (\d+)\) of 1000", desc)
    named = re.search(r"recorded as (.*?)(?:,| \(|;)", desc)
    words = re.findall(r"\"(.+?)\"", named.group(1)) if named else []
    elements = re.findall(r"\[(\d+)\] (\S+) (\".*?\"|\(no text\)) box=\[([\d,]+)\]", prompt)
    for i, kind, content, box in elements:
        if content != "(no text)" and json.loads(content) in words:
            return {"thought": f"element {i} still reads {content}", "element_id": int(i)}
    best = None
    if at:
        x, y = int(at.group(1)), int(at.group(2))
        for i, kind, content, box in elements:
            if content == "(no text)":
                continue
            x1, y1, x2, y2 = (int(v) for v in box.split(","))
            d = (((x1 + x2) / 2 - x) ** 2 + ((y1 + y2) / 2 - y) ** 2) ** 0.5
            if d <= 150 and (best is None or d < best[0]):
                best = (d, int(i), content)
    if best:
        return {"thought": f"element {best[1]} ({best[2]}) is where it was", "element_id": best[1]}
    return {"found": False, "reason": "nothing like the reference is on the screen"}


def ground_answer(texts, images=()):
    prompt = next((t for t in reversed(texts) if "# Find: " in t), texts[-1])
    desc = re.search(r"# Find: (.*)", prompt).group(1)
    if "of 1000 on the recorded screen" in desc:
        return heal_answer(desc, prompt, images)
    q = re.search(r"\"(.+?)\"", desc)
    want = q.group(1) if q else None
    if want is None:
        for w, k in WORDS.items():
            if re.search(r"\b" + w + r"\b", desc) or re.search(r"\bthe " + re.escape(k) + r" key\b", desc):
                want = k
                break
        m = re.search(r"\bthe (\S) key\b", desc)
        if want is None and m:
            want = m.group(1)
    for i, kind, content, box in re.findall(r"\[(\d+)\] (\S+) (\".*?\"|\(no text\)) box=\[([\d,]+)\]", prompt):
        if content != "(no text)" and json.loads(content) == want:
            if "(box)" in desc:
                return {"thought": "by box", "box": [int(v) for v in box.split(",")]}
            return {"thought": f"element {i} is {want}", "element_id": int(i)}
    return {"found": False, "reason": f"no element looks like {desc!r}"}


def plan_answer(texts):
    prompt = texts[-1]
    task = re.search(r"# Task: (.*)", prompt).group(1)
    seq = keys_of(task) or []
    names = {"AC": "AC", "*": "*", "=": "dynamic:the equals key"}

    def step(k):
        ref = names.get(k, k)
        return {"action": "tap", "target_ref": ref, "description": f"press {k}", "timeout": 2000, "retry": 0}

    if "# Failed step" in prompt:
        executed = re.findall(r"^\d+ tap \"(.*?)\" ok$", prompt, re.M)
        done = len(executed)
        rest = seq[done:]
        return {"analysis": {"replan": True, "done": done}, "steps": [step(k) for k in rest],
                "success_criteria": "the display shows the result"}
    steps = [step(k) for k in seq]
    if "replan" in task:
        steps.insert(3, {"action": "tap", "target_ref": "dynamic:the percent key", "description": "press %",
                         "timeout": 0, "retry": 0})
    return {"analysis": {"current_screen": "xcalc"}, "steps": steps, "success_criteria": "the display shows the result"}


def ask_answer(system, texts, images):
    q = texts[-1]
    if "exactly one JSON value" in system:
        if "not json" in q.lower():
            return "The screenshot shows a calculator."
        w, h = images[-1] if images else (0, 0)
        return json.dumps({"width": w, "height": h, "images": len(images), "question_words": len(q.split())})
    w, h = images[-1] if images else (0, 0)
    return f"A screenshot of {w}x{h} pixels."


# Where a computer-tool "model" clicks: the centres of xcalc's keys, physical pixels, xcalc at
# its default place (what a vision model would read off the screenshot); --screen gives the
# physical screen size, which the declared display is a scaled copy of.
XCALC_KEYS = {"AC": (202, 77), "0": (70, 377), "1": (70, 347), "2": (114, 347), "3": (158, 347),
              "4": (70, 317), "5": (114, 317), "6": (158, 317), "7": (70, 287), "8": (114, 287),
              "9": (158, 287), "+": (202, 347), "-": (202, 317), "*": (202, 287), "/": (202, 257),
              "=": (202, 377)}


def computer_tool(body, anthropic):
    """The declared display (w, h) when the request offers the computer tool, else None."""
    for t in body.get("tools") or []:
        if anthropic and str(t.get("type", "")).startswith("computer_"):
            if t.get("name") != "computer":
                raise BadRequest("the computer tool must be named computer")
            return int(t["display_width_px"]), int(t["display_height_px"])
        if not anthropic and t.get("type") == "function" and t["function"]["name"] == "computer":
            m = re.search(r"(\d+)x(\d+) pixel screen", t["function"].get("description", ""))
            if not m or "action" not in t["function"]["parameters"]["properties"]:
                raise BadRequest("the computer function names no screen size or no action field")
            return int(m.group(1)), int(m.group(2))
    return None


def computer_answer(body, anthropic, display):
    """The next computer-tool action for "compute A op B": a screenshot, then a click on each key
    (scaled from the physical screen to the declared display), then a text answer with no tool
    call."""
    msgs = [m for m in body["messages"] if m["role"] != "system"]
    first = msgs[0]["content"]
    task = first if isinstance(first, str) else "\n".join(b.get("text", "") for b in first if b.get("type") == "text")
    if anthropic:
        done = sum(1 for m in msgs if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use")
        results = [b for m in msgs if m["role"] == "user" and isinstance(m["content"], list)
                   for b in m["content"] if b.get("type") == "tool_result"]
        if len(results) != done:
            raise BadRequest(f"{done} tool calls but {len(results)} tool results")
        if results and not results[-1].get("is_error") and \
                not any(c.get("type") == "image" for c in results[-1].get("content", [])):
            raise BadRequest("the last tool result carries no screenshot")
    else:
        done = sum(len(m.get("tool_calls") or []) for m in msgs if m["role"] == "assistant")
        if sum(1 for m in msgs if m["role"] == "tool") != done:
            raise BadRequest("every tool call needs its tool message")
    keys = keys_of(task) or []
    plan = [{"action": "screenshot"}]
    if "after login" in task:
        # Hands the screen to the person through the needs_user tool first (issue 29); its
        # result must say the person acted and carry the screen they left.
        if not any(t.get("name") == "needs_user" for t in body.get("tools") or []) and \
                not any(t.get("function", {}).get("name") == "needs_user" for t in body.get("tools") or []):
            raise BadRequest("a task after login needs the needs_user tool, which the request does not offer")
        plan.append({"tool": "needs_user", "text": "请先登录"})
        if anthropic and done > 1:
            texts = [c.get("text", "") for c in results[1].get("content", []) if c.get("type") == "text"]
            if not any("用户已操作" in t for t in texts):
                raise BadRequest(f"the needs_user tool result does not say the person acted: {texts}")
    w, h = display
    sw, sh = (int(v) for v in ARGS.screen.split("x"))
    for k in keys:
        x, y = XCALC_KEYS[k]
        plan.append({"action": "left_click", "coordinate": [round(x * w / sw), round(y * h / sh)]})
    if done >= len(plan):
        return None, "结果已显示", done
    return plan[done], "", done


def tool_call(call):
    """(tool name, input) of a planned call: the computer tool's action, or another tool."""
    if "tool" in call:
        return call["tool"], {k: v for k, v in call.items() if k != "tool"}
    return "computer", call


def click_check_answer(texts):
    prompt = texts[-1]
    task = re.search(r"^Task: (.*)$", prompt, re.M).group(1)
    tx, ty = (int(v) for v in re.search(r"^Target: .* at x=(\d+), y=(\d+)", prompt, re.M).groups())
    mx, my = (int(v) for v in re.search(r"^Pointer: x=(\d+), y=(\d+)", prompt, re.M).groups())
    if "misaligned pointer" in task:
        return {"on_target": False, "dx": -40 if mx > 200 else 40, "dy": -25 if my > 200 else 25}
    box = re.search(r"box x1=(\d+), y1=(\d+), x2=(\d+), y2=(\d+)", prompt)
    if box:
        x1, y1, x2, y2 = (int(v) for v in box.groups())
        on = x1 <= mx < x2 and y1 <= my < y2
        tx, ty = (x1 + x2) // 2, (y1 + y2) // 2
    else:
        on = (mx - tx) ** 2 + (my - ty) ** 2 <= 14 ** 2
    return {"on_target": on, "dx": 0 if on else tx - mx, "dy": 0 if on else ty - my}


def answer(system, texts, images):
    if "You check a mouse pointer" in system:
        return json.dumps(click_check_answer(texts)), "click_check"
    if "桌面自动化 Agent" in system:
        return json.dumps(agent_answer(system, texts), ensure_ascii=False), "autopilot"
    if "You locate one UI element" in system:
        return json.dumps(ground_answer(texts, images)), "locate"
    if "task planner" in system:
        return json.dumps(plan_answer(texts)), "plan"
    return ask_answer(system, texts, images), "ask"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):  # noqa: N802
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        anthropic = self.path == "/v1/messages"
        entry = {"path": self.path, "auth_ok": None}
        try:
            if self.path not in ("/v1/messages", "/v1/chat/completions"):
                self.reply(404, {"error": {"message": f"no route {self.path}"}})
                return
            if anthropic:
                if not self.headers.get("anthropic-version"):
                    raise BadRequest("missing anthropic-version header")
                got = self.headers.get("x-api-key", "")
            else:
                got = self.headers.get("Authorization", "").removeprefix("Bearer ")
            entry["auth_ok"] = (got == ARGS.key) if ARGS.key else True
            if not entry["auth_ok"]:
                self.reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
                           if anthropic else {"error": {"message": f"Incorrect API key provided: {got}", "type": "invalid_request_error"}})
                return
            body = json.loads(raw)
            display = computer_tool(body, anthropic)
            system, texts, roles, images = (parse_anthropic if anthropic else parse_openai)(body)
            if display:
                roles = [r for r in roles if r != "tool"]  # OpenAI tool messages sit between turns
                check_roles([r for i, r in enumerate(roles) if i == 0 or r != roles[i - 1]])
                call, text, done = computer_answer(body, anthropic, display)
                kind = "computer"
                entry.update(kind=kind, display=list(display), action=call, answer=text)
            else:
                check_roles(roles)
                call = None
                text, kind = answer(system, texts, images)
                entry.update(kind=kind, images=len(images), messages=len(roles), answer=text)
        except (BadRequest, KeyError, ValueError, AttributeError, IndexError) as e:
            entry["error"] = f"{type(e).__name__}: {e}"
            self.log(entry)
            msg = f"bad request: {e}"
            self.reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": msg}}
                       if anthropic else {"error": {"message": msg, "type": "invalid_request_error"}})
            return
        self.log(entry)
        if call is not None:
            cid = "toolu_%d" % done
            name, call = tool_call(call)
            if anthropic:
                self.reply(200, {"id": "msg_fake", "type": "message", "role": "assistant", "model": body["model"],
                                 "content": [{"type": "tool_use", "id": cid, "name": name, "input": call}],
                                 "stop_reason": "tool_use", "usage": {"input_tokens": 1000, "output_tokens": 20}})
            else:
                self.reply(200, {"id": "chatcmpl-fake", "object": "chat.completion", "model": body["model"],
                                 "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                                     "role": "assistant", "content": None, "tool_calls": [{
                                         "id": cid, "type": "function",
                                         "function": {"name": name, "arguments": json.dumps(call)}}]}}],
                                 "usage": {"prompt_tokens": 1000, "completion_tokens": 20}})
            return
        if anthropic:
            self.reply(200, {"id": "msg_fake", "type": "message", "role": "assistant", "model": body["model"],
                             "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                             "usage": {"input_tokens": 100 + 1000 * len(images), "output_tokens": len(text) // 4 + 1}})
        else:
            self.reply(200, {"id": "chatcmpl-fake", "object": "chat.completion", "model": body["model"],
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 100 + 1000 * len(images), "completion_tokens": len(text) // 4 + 1}})

    def log(self, entry):
        if ARGS.log:
            with LOCK, open(ARGS.log, "a") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--key", default="")
    p.add_argument("--log", default="")
    p.add_argument("--screen", default="1280x800", help="the physical screen size, for computer-tool clicks")
    ARGS = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    print(f"PORT {srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
