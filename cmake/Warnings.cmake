# relforge_warnings(target): the project's warning set; errors when RELFORGE_WARNINGS_AS_ERRORS.
function(relforge_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wdouble-promotion -Wformat=2
                                           -Wimplicit-fallthrough)
  if(RELFORGE_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
