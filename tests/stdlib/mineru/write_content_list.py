"""write_content_list.py MIDDLE_JSON OUT_JSON: MinerU's own content_list.json writer (the VLM
backend's union_make, CONTENT_LIST mode) run on a middle JSON, in a venv that holds MinerU's
package (make_fixtures.sh). Where MinerU's code guesser (Magika) is installed, each code block's
guess_lang in the middle JSON must be its guess, as MinerU's model output would carry it."""
import json
import sys

from mineru.backend.vlm.vlm_middle_json_mkcontent import union_make
from mineru.utils.enum_class import MakeMode

middle_path, out_path = sys.argv[1], sys.argv[2]
with open(middle_path, encoding="utf-8") as f:
    middle = json.load(f)

try:
    from mineru.utils.guess_suffix_or_lang import guess_language_by_text
except ImportError:  # MinerU 3's venv: no Magika
    guess_language_by_text = None
if guess_language_by_text:
    for page in middle["pdf_info"]:
        for block in page["para_blocks"]:
            if block["type"] != "code":
                continue
            body = next(b for b in block["blocks"] if b["type"] == "code_body")
            code = "".join(s["content"] for line in body["lines"] for s in line["spans"])
            guess = guess_language_by_text(code)
            if guess != block["guess_lang"]:
                sys.exit(
                    f"{middle_path}: Magika guesses {guess!r}, the middle JSON says "
                    f"{block['guess_lang']!r} for:\n{code}"
                )

content_list = union_make(middle["pdf_info"], MakeMode.CONTENT_LIST, "")
with open(out_path, "w", encoding="utf-8") as f:
    # as MinerU's CLI writes its *_content_list.json
    f.write(json.dumps(content_list, ensure_ascii=False, indent=4))
    f.write("\n")
