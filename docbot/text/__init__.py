"""Words as every part of docbot compares them: the tokenizer, Snowball stems and WordNet synonyms.

Pure; imports no other docbot package (the lowest room of the house).
"""
