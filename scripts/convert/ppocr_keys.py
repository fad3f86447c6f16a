"""The characters a PP-OCR recognizer reads, one a line, from its ONNX file's `character` metadata.

Usage: ppocr_keys.py MODEL.onnx OUT.txt
"""
import sys

import onnx

model = onnx.load(sys.argv[1], load_external_data=False)
props = {p.key: p.value for p in model.metadata_props}
if 'character' not in props:
    sys.exit(f'{sys.argv[1]} names no characters in its metadata')
with open(sys.argv[2], 'w', encoding='utf-8', newline='\n') as out:
    out.write(props['character'].rstrip('\n') + '\n')
