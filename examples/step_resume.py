"""Driving the sandbox's step/resume loop yourself.

Run: python examples/step_resume.py
"""

from amla_sandbox import Sandbox, ToolDefinition


def main() -> None:
    with Sandbox(tools=[ToolDefinition("lookup", "Look a word up", {"type": "object"})]) as sb:
        sb.start(
            """
            const words = ["wasm", "quickjs", "shell"];
            const found = await Promise.all(words.map(w => lookup({word: w})));
            return found.join(" | ");
            """
        )
        while sb.has_work():
            req = sb.step()  # all three requests arrive before any is answered
            print("request", req.id, req.method, req.params)
            sb.resume(f"{req.params['word']}={len(req.params['word'])}", id=req.id)
        print(sb.result().stdout, end="")


if __name__ == "__main__":
    main()
