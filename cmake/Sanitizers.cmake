# ROP_SANITIZE=address,undefined or thread: applied to every target in the tree.
if(ROP_SANITIZE)
    add_compile_options(-fsanitize=${ROP_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${ROP_SANITIZE})
endif()
