* An include bomb: each .include below reads a file of ten .includes of
* another, five levels down: 111,110 includes of six small files, past
* OPTINC_MAX_INCLUDES (10,000 by default), refused at the 10,001st.
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.include "include_bomb_1.inc"
.end
