# bash completion for ropc (docs/editor.md). Install: source this file from ~/.bashrc, or copy it
# to ~/.local/share/bash-completion/completions/ropc. zsh: `autoload -U +X bashcompinit &&
# bashcompinit && source ropc.bash`.
#
# The words below are ropc's, per subcommand, as `ropc --help` and `ropc SUBCOMMAND --help` list
# them; tests/lsp/test_completion.py fails when the two differ, so a flag added to ropc without
# its completion (or left here after ropc drops it) is caught. A trailing '=' marks a flag whose
# value is completed from the lists after it (_ropc_values_COMMAND_FLAG first, then
# _ropc_values_FLAG).
_ropc_commands="check build emit graph fmt lsp warm cache"
_ropc_flags_top="--explain --version --help"
_ropc_flags_check="-Werror --format= --max-errors= -I --no-bind --color= --mpi --help"
_ropc_flags_build="-o --cxx --emit= --keep-cpp -I --src -O -j -v --bundle --static --mpi -Werror --max-errors= --color= --help"
_ropc_flags_emit="-I --no-bind -Werror --max-errors= --color= --emit= --help"
_ropc_flags_graph="-Werror --max-errors= --color= --help"
_ropc_flags_fmt="--check -i --in-place -Werror --max-errors= --color= --help"
_ropc_flags_lsp="--bind -I --help"
_ropc_flags_warm="--into --cxx -O -v --help"
_ropc_flags_cache="--max-size --older-than --dry-run --help"
_ropc_values_format="text json sarif"
_ropc_values_color="auto always never"
_ropc_values_emit="tokens ast plan"
_ropc_values_build_emit="cpp plan"
_ropc_values_cache="info prune clear"
_ropc_values_O="0 1 2 3 s"

_ropc() {
    local cur prev command="" i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_CWORD:+${COMP_WORDS[COMP_CWORD - 1]}}
    for ((i = 1; i < COMP_CWORD; i++)); do
        case " $_ropc_commands " in *" ${COMP_WORDS[i]} "*)
            command=${COMP_WORDS[i]}
            break
            ;;
        esac
    done
    COMPREPLY=()

    # A flag's value: `--format=json` (one word, or split at '=' by COMP_WORDBREAKS), `-I DIR`.
    local flag="" value=""
    if [[ $cur == --*=* ]]; then
        flag=${cur%%=*}
        value=${cur#*=}
    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
        flag=${COMP_WORDS[COMP_CWORD - 2]}
        value=$cur
    elif [[ $cur == = ]]; then
        flag=$prev
        value=""
    fi
    if [[ -n $flag ]]; then
        local values_var="_ropc_values_${command}_${flag#--}"
        [[ -n $command && -n ${!values_var:-} ]] || values_var="_ropc_values_${flag#--}"
        if [[ -n ${!values_var:-} ]]; then
            COMPREPLY=($(compgen -W "${!values_var}" -- "$value"))
            [[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$flag=}")
        fi
        return 0
    fi
    case $prev in
    -I | --keep-cpp | --bundle | --into)
        COMPREPLY=($(compgen -d -- "$cur"))
        return 0
        ;;
    -o | --src)
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
        ;;
    --cxx)
        COMPREPLY=($(compgen -c -- "$cur"))
        return 0
        ;;
    -O)
        COMPREPLY=($(compgen -W "$_ropc_values_O" -- "$cur"))
        return 0
        ;;
    -j | --max-errors | --explain | --max-size | --older-than) return 0 ;;
    esac

    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "$_ropc_commands $_ropc_flags_top" -- "$cur"))
        return 0
    fi
    if [[ $cur == -* ]]; then
        local flags_var="_ropc_flags_$command"
        COMPREPLY=($(compgen -W "${!flags_var}" -- "$cur"))
        # `--format=` waits for its value: no space after it.
        [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
        return 0
    fi
    if [[ $command == emit && $prev == emit ]]; then
        COMPREPLY=($(compgen -W "$_ropc_values_emit" -- "$cur"))
        return 0
    fi
    if [[ $command == cache ]]; then
        [[ $prev == cache ]] && COMPREPLY=($(compgen -W "$_ropc_values_cache" -- "$cur"))
        return 0
    fi
    [[ $command == lsp || $command == warm ]] && return 0
    # Pipelines: .rop files and the folders that may hold them.
    COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.rop' -- "$cur"))
    compopt -o filenames 2>/dev/null
    return 0
}
complete -F _ropc ropc
