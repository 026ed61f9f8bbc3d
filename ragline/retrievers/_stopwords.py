"""Stopword lists for BM25Tokenizer, one per language (lowercase, as tokens come out).

Short lists of function words (articles, pronouns, auxiliaries, prepositions,
conjunctions, question words), written for keyword search over questions: words that
say how a question is asked rather than what it is about. Negations stay searchable
only where they carry meaning in documentation ("not", "no" are kept out of the English
list on purpose: "not null", "no wait").
"""

from __future__ import annotations

__all__ = ["STOPWORDS"]

_ENGLISH = """
a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in
into is it its itself just me more most my myself nor of off on once only or other our
ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself
yourselves s t d ll m re ve
"""

_FRENCH = """
a au aux avec ce ces cet cette dans de des du elle elles en est et eux il ils je la le
les leur leurs lui ma mais me mes moi mon même ne nos notre nous on ont ou où par pas
pour qu que quel quelle quelles quels qui sa sans se ses si son sont sur ta te tes toi
ton tu un une vos votre vous y été être avoir fait comme comment plus c d j l m n s t
"""

_GERMAN = """
aber als am an auch auf aus bei bin bis bist da dann das dass dein deine dem den der des
die dies diese dieser dieses doch dort du durch ein eine einem einen einer eines er es
euer eure für hat hatte hier ich ihr ihre im in ist ja jede jedem jeden jeder jedes
kann mein meine mich mir mit muss nach nicht noch nun nur ob oder ohne sein seine sich
sie sind so über um und uns unser unsere unter vom von vor war waren was weil wenn
wer wie wir wird wo zu zum zur
"""

_SPANISH = """
a al algo algunas algunos ante antes como con contra cual cuando de del desde donde
durante e el ella ellas ellos en entre era es esa esas ese eso esos esta estas este
esto estos fue ha hay la las le les lo los más me mi mis muy nada ni no nos nosotros
o os otra otro para pero poco por porque que quien se sea ser si sin sobre son su sus
también te tu tus un una uno unos y ya yo cómo qué cuál dónde
"""

STOPWORDS: dict[str, frozenset[str]] = {
    "english": frozenset(_ENGLISH.split()),
    "french": frozenset(_FRENCH.split()),
    "german": frozenset(_GERMAN.split()),
    "spanish": frozenset(_SPANISH.split()),
}
